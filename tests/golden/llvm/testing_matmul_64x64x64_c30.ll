; ModuleID = 'testing/matmul'
source_filename = "testing/matmul"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: alwaysinline nounwind
define internal void @testing_matmul_default_function_kernel.body(ptr noalias %A, ptr noalias %B, ptr noalias %C, ptr %pool) #0 {
  %closure = alloca { ptr, ptr, ptr }, align 8
  br label %1

1:                                                ; preds = %0
  %2 = getelementptr inbounds { ptr, ptr, ptr }, ptr %closure, i32 0, i32 0
  store ptr %A, ptr %2, align 8
  %3 = getelementptr inbounds { ptr, ptr, ptr }, ptr %closure, i32 0, i32 1
  store ptr %B, ptr %3, align 8
  %4 = getelementptr inbounds { ptr, ptr, ptr }, ptr %closure, i32 0, i32 2
  store ptr %C, ptr %4, align 8
  call void @at_llvm_parallel_for(ptr %pool, ptr @testing_matmul_default_function_kernel.par0, ptr %closure, i64 16, i64 0)
  ret void
}

; Function Attrs: nounwind
define void @testing_matmul_default_function_kernel(ptr %0, ptr %1) #1 {
  %3 = getelementptr inbounds ptr, ptr %0, i64 0
  %A = load ptr, ptr %3, align 8
  %4 = getelementptr inbounds ptr, ptr %0, i64 1
  %B = load ptr, ptr %4, align 8
  %5 = getelementptr inbounds ptr, ptr %0, i64 2
  %C = load ptr, ptr %5, align 8
  call void @testing_matmul_default_function_kernel.body(ptr %A, ptr %B, ptr %C, ptr %1)
  ret void
}

; Function Attrs: alwaysinline nounwind
define internal void @testing_matmul_default_function_kernel.par0.body(ptr noalias %A, ptr noalias %B, ptr noalias %C, i64 %begin, i64 %end) #0 {
  %C_local = alloca [1 x float], align 64
  br label %1

1:                                                ; preds = %0
  %2 = trunc i64 %begin to i32
  %3 = trunc i64 %end to i32
  %4 = icmp slt i32 %2, %3
  br i1 %4, label %by, label %6

by:                                               ; preds = %8, %1
  %5 = phi i32 [ %2, %1 ], [ %9, %8 ]
  br label %bx

6:                                                ; preds = %8, %1
  ret void

bx:                                               ; preds = %12, %by
  %7 = phi i32 [ 0, %by ], [ %13, %12 ]
  br label %ty

8:                                                ; preds = %12
  %9 = add nsw i32 %5, 1
  %10 = icmp slt i32 %9, %3
  br i1 %10, label %by, label %6

ty:                                               ; preds = %17, %bx
  %11 = phi i32 [ 0, %bx ], [ %18, %17 ]
  br label %tx

12:                                               ; preds = %17
  %13 = add nsw i32 %7, 1
  %14 = icmp slt i32 %13, 4
  br i1 %14, label %bx, label %8

tx:                                               ; preds = %41, %ty
  %15 = phi i32 [ 0, %ty ], [ %52, %41 ]
  %16 = getelementptr inbounds float, ptr %C_local, i64 0
  store float 0.000000e+00, ptr %16, align 4
  br label %k

17:                                               ; preds = %41
  %18 = add nsw i32 %11, 1
  %19 = icmp slt i32 %18, 4
  br i1 %19, label %ty, label %12

k:                                                ; preds = %k, %tx
  %20 = phi i32 [ 0, %tx ], [ %39, %k ]
  %21 = mul nsw i32 %5, 4
  %22 = add nsw i32 %21, %11
  %23 = mul nsw i32 %22, 64
  %24 = add nsw i32 %23, %20
  %25 = sext i32 %24 to i64
  %26 = getelementptr inbounds float, ptr %A, i64 %25
  %27 = load float, ptr %26, align 4
  %28 = mul nsw i32 %20, 64
  %29 = mul nsw i32 %7, 16
  %30 = add nsw i32 %29, %15
  %31 = add nsw i32 %28, %30
  %32 = sext i32 %31 to i64
  %33 = getelementptr inbounds float, ptr %B, i64 %32
  %34 = load float, ptr %33, align 4
  %35 = getelementptr inbounds float, ptr %C_local, i64 0
  %36 = load float, ptr %35, align 4
  %37 = call float @llvm.fmuladd.f32(float %27, float %34, float %36)
  %38 = getelementptr inbounds float, ptr %C_local, i64 0
  store float %37, ptr %38, align 4
  %39 = add nsw i32 %20, 1
  %40 = icmp slt i32 %39, 64
  br i1 %40, label %k, label %41

41:                                               ; preds = %k
  %42 = getelementptr inbounds float, ptr %C_local, i64 0
  %43 = load float, ptr %42, align 4
  %44 = mul nsw i32 %5, 4
  %45 = add nsw i32 %44, %11
  %46 = mul nsw i32 %45, 64
  %47 = mul nsw i32 %7, 16
  %48 = add nsw i32 %47, %15
  %49 = add nsw i32 %46, %48
  %50 = sext i32 %49 to i64
  %51 = getelementptr inbounds float, ptr %C, i64 %50
  store float %43, ptr %51, align 4
  %52 = add nsw i32 %15, 1
  %53 = icmp slt i32 %52, 16
  br i1 %53, label %tx, label %17
}

; Function Attrs: nounwind
define internal void @testing_matmul_default_function_kernel.par0(ptr %0, i64 %1, i64 %2) #1 {
  %4 = getelementptr inbounds { ptr, ptr, ptr }, ptr %0, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8
  %6 = getelementptr inbounds { ptr, ptr, ptr }, ptr %0, i32 0, i32 1
  %7 = load ptr, ptr %6, align 8
  %8 = getelementptr inbounds { ptr, ptr, ptr }, ptr %0, i32 0, i32 2
  %9 = load ptr, ptr %8, align 8
  call void @testing_matmul_default_function_kernel.par0.body(ptr %5, ptr %7, ptr %9, i64 %1, i64 %2)
  ret void
}

declare void @at_llvm_parallel_for(ptr, ptr, ptr, i64, i64)

; Function Attrs: nocallback nofree nosync nounwind readnone speculatable willreturn
declare float @llvm.fmuladd.f32(float, float, float) #2

attributes #0 = { alwaysinline nounwind "target-cpu"="x86-64" }
attributes #1 = { nounwind "target-cpu"="x86-64" }
attributes #2 = { nocallback nofree nosync nounwind readnone speculatable willreturn }

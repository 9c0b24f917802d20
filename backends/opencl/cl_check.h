/* The adapter from OpenCL's cl_int codes to at_status (STYLE 2.4): the only place that knows
 * the error names. Included by runtime.c only. */
#ifndef AT_BACKENDS_OPENCL_CL_CHECK_H
#define AT_BACKENDS_OPENCL_CL_CHECK_H

#include <CL/cl.h>

#include "core/status.h"

/* "CL_OUT_OF_RESOURCES", ...; "CL_UNKNOWN_ERROR" for codes it does not know. */
const char *at_ocl_err_name(cl_int err);

/* AT_OK for CL_SUCCESS, else AT_EDEVICE with "<what>: <name> (<code>)" as the detail. */
at_status at_ocl_check(cl_int err, const char *what);

#endif

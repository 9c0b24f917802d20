# Merges `bench_convergence --oracle ... --per-run` outputs of split invocations (--first-seed): per
# task the median over seeds of the trials to the target, then the median over tasks (issue 18, C1).
import sys, statistics, collections
runs = collections.defaultdict(list)
for f in sys.argv[1:]:
    for l in open(f):
        p = l.split()
        if len(p) == 6 and p[0] == 'run':
            t = int(p[5]); runs[(p[1], int(p[3]), int(p[2]))].append(float('inf') if t < 0 else t)
tasks = sorted({k[2] for k in runs}, key=lambda x: -x)
cols = [('random', 0), ('xgb_rank', 0), ('xgb_rank', 1)]
print('task  ' + '  '.join('%s%s' % (n, '+tl' if tl else '') for n, tl in cols))
per = collections.defaultdict(list)
for k in tasks:
    row = []
    for n, tl in cols:
        v = runs.get((n, tl, k))
        m = statistics.median(v) if v else None
        per[(n, tl)].append(m); row.append('%s(%d)' % (m, len(v)) if v else '-')
    print(k, *row)
for n, tl in cols:
    print(n, 'transfer' if tl else '', 'median over tasks', statistics.median(per[(n, tl)]))

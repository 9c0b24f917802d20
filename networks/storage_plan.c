/* Storage planning for node buffers, as TVM's graph memory planner and onnxruntime's allocation
 * planner do: a buffer lives from the first step that touches it to the last, and buffers whose
 * lives do not overlap share one allocation. A freed slot goes to the next buffer that starts,
 * the most recently freed first: the previous layer's input is still in the caches, where a
 * buffer of its own would be cold (issue 16: mobilenet's memory-bound layers ran 2x slower in
 * the network than run back to back). */
#include "core/alloc.h"
#include "networks/internal.h"

at_status at_net_plan_storage(const at_net_live *v, size_t n, size_t *slot, size_t **slot_bytes, size_t *n_slots)
{
    *slot_bytes = NULL;
    *n_slots = 0;
    size_t *order = at_calloc(n + 1, sizeof *order);
    size_t *bytes = at_calloc(n + 1, sizeof *bytes);
    size_t *busy_until = at_calloc(n + 1, sizeof *busy_until); /* per slot: its occupant's last step */
    if (!order || !bytes || !busy_until) {
        at_free(order);
        at_free(bytes);
        at_free(busy_until);
        return AT_OOM();
    }
    /* by first step, ties in input order (insertion sort: a network has a few hundred buffers) */
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 && v[order[j - 1]].first > v[i].first) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    size_t ns = 0;
    for (size_t oi = 0; oi < n; oi++) {
        const at_net_live *b = &v[order[oi]];
        AT_ASSERT(b->first <= b->last);
        size_t best = SIZE_MAX, grow = SIZE_MAX;
        for (size_t s = 0; s < ns; s++) {
            if (busy_until[s] >= b->first) continue; /* its occupant is still read at or after b's first step */
            if (bytes[s] >= b->bytes) {
                if (best == SIZE_MAX || busy_until[s] > busy_until[best]) best = s;
            } else if (grow == SIZE_MAX || bytes[s] > bytes[grow]) {
                grow = s;
            }
        }
        size_t s = best != SIZE_MAX ? best : grow != SIZE_MAX ? grow : ns++;
        if (bytes[s] < b->bytes) bytes[s] = b->bytes;
        busy_until[s] = b->last;
        slot[order[oi]] = s;
    }
    at_free(order);
    at_free(busy_until);
    *slot_bytes = bytes;
    *n_slots = ns;
    return AT_OK;
}

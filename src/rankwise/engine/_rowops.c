/* Compiled row operations for rankwise.rowops: grouping rows by query, ordering each query, looking up grades.
 *
 * Plain C over buffers (the buffer protocol, no numpy headers): Python allocates every output, these functions
 * fill them with the GIL released. rankwise/rowops.py holds the numpy version of each function, which defines
 * what they compute; tests/engine/test_rowops.py checks that both agree.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include "_threads.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_sorting.h"
#include "_buffers.h"

/* Work split over threads: query ranges of about equal rows, each thread on its own range (results do not depend
 * on the split: every query is ordered, or every row looked up, by itself). */
typedef struct {
    double *score;
    int64_t *key, *row;
    const int64_t *offsets;
    int64_t first, last; /* queries first..last-1 */
} SortTask;

static void *sort_queries(void *arg) {
    SortTask *t = arg;
    double *score = t->score;
    int64_t *key = t->key, *row = t->row;
    for (int64_t q = t->first; q < t->last; q++)
        if (!in_order(score, key, row, t->offsets[q], t->offsets[q + 1]))
            sort_segment(score, key, row, t->offsets[q], t->offsets[q + 1]);
    return NULL;
}

/* Sort every query's rows, the queries split over threads (the calling thread takes the first range). */
static void sort_all(double *score, int64_t *key, int64_t *row, const int64_t *offsets, int64_t num_queries,
                     int requested) {
    int threads = thread_count(requested, offsets[num_queries]);
    SortTask tasks[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        tasks[t] = (SortTask){score, key, row, offsets, range_start(offsets, num_queries, t, threads),
                              range_start(offsets, num_queries, t + 1, threads)};
    run_all(sort_queries, tasks, sizeof(SortTask), threads);
}

/* group_order's placing pass (see count_tasks in _threads.h): each row at its task's next position in its query. */
typedef struct {
    const CountTask *c;
    const double *score;
    const int64_t *key;
    int64_t *order;
    double *sscore;
    int64_t *skey;
} GroupPlace;

static void *group_place(void *arg) {
    GroupPlace *t = arg;
    const CountTask *c = t->c;
    const int64_t *qidx = c->key;
    int64_t *next = c->count;
    for (int64_t i = c->begin; i < c->end; i++) {
        int64_t at = next[qidx[i]]++;
        t->order[at] = i;
        if (t->sscore != NULL) t->sscore[at] = t->score[i];
        if (t->skey != NULL) t->skey[at] = t->key[i];
    }
    return NULL;
}

/* group_order(qidx, num_queries, score, key, order, sorted_score, sorted_key, offsets, threads)
 *
 * Rows grouped by query index (0 <= qidx < num_queries, rows of a query in input order: a counting sort on every
 * core), then each query's rows ordered by (score descending, key ascending), the queries split over ``threads``
 * threads.
 * Writes the row order, the scores and keys in that order, and offsets (num_queries + 1: the rows of query q are
 * offsets[q]..offsets[q+1]-1). key and sorted_key may be None: the rows' input positions are the key; score and
 * sorted_score may be None: rows ordered by key alone. */
static int optional_buffer(PyObject *obj, Py_buffer *view, int flags) {
    return obj == Py_None ? 0 : (PyObject_GetBuffer(obj, view, flags) < 0 ? -1 : 1);
}

static PyObject *group_order(PyObject *self, PyObject *args) {
    Py_buffer qidx_v, score_v = {0}, key_v = {0}, order_v, sscore_v = {0}, skey_v = {0}, offsets_v;
    PyObject *score_obj, *key_obj, *sscore_obj, *skey_obj;
    Py_ssize_t num_queries;
    int threads;
    if (!PyArg_ParseTuple(args, "y*nOOw*OOw*i", &qidx_v, &num_queries, &score_obj, &key_obj, &order_v, &sscore_obj,
                          &skey_obj, &offsets_v, &threads))
        return NULL;
    PyObject *result = NULL;
    int got[4] = {optional_buffer(score_obj, &score_v, PyBUF_SIMPLE), 0, 0, 0};
    if (got[0] >= 0) got[1] = optional_buffer(sscore_obj, &sscore_v, PyBUF_WRITABLE);
    if (got[0] >= 0 && got[1] >= 0) got[2] = optional_buffer(key_obj, &key_v, PyBUF_SIMPLE);
    if (got[0] >= 0 && got[1] >= 0 && got[2] >= 0) got[3] = optional_buffer(skey_obj, &skey_v, PyBUF_WRITABLE);
    if (got[0] < 0 || got[1] < 0 || got[2] < 0 || got[3] < 0) goto done;
    if (got[0] != got[1] || got[2] != got[3]) {
        PyErr_SetString(PyExc_ValueError, "score and sorted_score, key and sorted_key: both given or both None");
        goto done;
    }
    int have_score = got[0], have_key = got[2];
    Py_ssize_t n = qidx_v.len / 8;
    if (!check(&qidx_v, 8, n, "qidx") || (have_score && (!check(&score_v, 8, n, "score") ||
                                                         !check(&sscore_v, 8, n, "sorted_score"))) ||
        (have_key && (!check(&key_v, 8, n, "key") || !check(&skey_v, 8, n, "sorted_key"))) ||
        !check(&order_v, 8, n, "order") || !check(&offsets_v, 8, num_queries + 1, "offsets"))
        goto done;
    const int64_t *qidx = qidx_v.buf, *key = have_key ? key_v.buf : NULL;
    const double *score = have_score ? score_v.buf : NULL;
    int64_t *order = order_v.buf, *skey = have_key ? skey_v.buf : NULL, *offsets = offsets_v.buf;
    double *sscore = have_score ? sscore_v.buf : NULL;
    int parts = tasks_for_rows(threads, n), ok;
    int64_t *counts = calloc((size_t)parts * (size_t)(num_queries ? num_queries : 1), sizeof(int64_t));
    if (counts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    CountTask sorts[MAX_THREADS];
    ok = count_tasks(sorts, parts, qidx, NULL, 0, 0, n, num_queries, counts);
    if (ok) {
        first_positions(sorts, parts, num_queries, offsets);
        GroupPlace places[MAX_THREADS];
        for (int t = 0; t < parts; t++) places[t] = (GroupPlace){&sorts[t], score, key, order, sscore, skey};
        run_all(group_place, places, sizeof(GroupPlace), parts);
        sort_all(sscore, skey, order, offsets, num_queries, threads);
    }
    Py_END_ALLOW_THREADS
    free(counts);
    if (!ok) {
        for (Py_ssize_t i = 0; i < n; i++)
            if (qidx[i] < 0 || qidx[i] >= num_queries) {
                PyErr_Format(PyExc_ValueError, "qidx[%zd] = %lld is outside 0..%zd", i, (long long)qidx[i],
                             num_queries - 1);
                break;
            }
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&qidx_v);
    if (got[0] > 0) PyBuffer_Release(&score_v);
    if (got[1] > 0) PyBuffer_Release(&sscore_v);
    if (got[2] > 0) PyBuffer_Release(&key_v);
    if (got[3] > 0) PyBuffer_Release(&skey_v);
    PyBuffer_Release(&order_v);
    PyBuffer_Release(&offsets_v);
    return result;
}

typedef struct {
    const int64_t *qidx, *doc, *offsets, *jdoc, *jvalue;
    int64_t missing, *out, first, last; /* rows first..last-1 */
} LookupTask;

static void *lookup_rows(void *arg) {
    LookupTask *t = arg;
    for (int64_t i = t->first; i < t->last; i++)
        t->out[i] = judged_value(t->jdoc, t->jvalue, t->offsets[t->qidx[i]], t->offsets[t->qidx[i] + 1], t->doc[i],
                                 t->missing);
    return NULL;
}

/* lookup(qidx, doc, offsets, judged_doc, judged_value, missing, out, threads)
 *
 * For each row (query index, doc code): the value of that doc among its query's judgments, or ``missing``.
 * The judgments of query q are judged_doc[offsets[q]..offsets[q+1]-1], sorted ascending (binary search); rows
 * split over ``threads`` threads. */
static PyObject *lookup(PyObject *self, PyObject *args) {
    Py_buffer qidx_v, doc_v, offsets_v, jdoc_v, jvalue_v, out_v;
    long long missing;
    int requested;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*Lw*i", &qidx_v, &doc_v, &offsets_v, &jdoc_v, &jvalue_v, &missing, &out_v,
                          &requested))
        return NULL;
    Py_ssize_t n = qidx_v.len / 8, m = jdoc_v.len / 8, num_queries = offsets_v.len / 8 - 1;
    PyObject *result = NULL;
    if (num_queries < 0 || !check(&qidx_v, 8, n, "qidx") || !check(&doc_v, 8, n, "doc") ||
        !check(&offsets_v, 8, num_queries + 1, "offsets") || !check(&jdoc_v, 8, m, "judged_doc") ||
        !check(&jvalue_v, 8, m, "judged_value") || !check(&out_v, 8, n, "out"))
        goto done;
    const int64_t *qidx = qidx_v.buf, *offsets = offsets_v.buf;
    if (num_queries > 0 && (offsets[0] != 0 || offsets[num_queries] != m)) {
        PyErr_SetString(PyExc_ValueError, "offsets must run from 0 to len(judged_doc)");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (qidx[i] < 0 || qidx[i] >= num_queries) {
            PyErr_Format(PyExc_ValueError, "qidx[%zd] = %lld is outside 0..%zd", i, (long long)qidx[i],
                         num_queries - 1);
            goto done;
        }
    Py_BEGIN_ALLOW_THREADS
    int threads = thread_count(requested, n);
    LookupTask tasks[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        tasks[t] = (LookupTask){qidx, doc_v.buf, offsets, jdoc_v.buf, jvalue_v.buf, (int64_t)missing, out_v.buf,
                                n / threads * t, t + 1 == threads ? n : n / threads * (t + 1)};
    run_all(lookup_rows, tasks, sizeof(LookupTask), threads);
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&qidx_v);
    PyBuffer_Release(&doc_v);
    PyBuffer_Release(&offsets_v);
    PyBuffer_Release(&jdoc_v);
    PyBuffer_Release(&jvalue_v);
    PyBuffer_Release(&out_v);
    return result;
}

/* align_rows: rows grouped by query on every core (a counting sort), each query's rows ordered, and every row's
 * judged value looked up, in one pass over each query while its rows are in cache. */
typedef struct {
    const CountTask *c;
    const double *score;
    const int64_t *doc;
    int64_t *sdoc;
    double *sscore;
} AlignPlace;

static void *align_place(void *arg) {
    AlignPlace *t = arg;
    const CountTask *c = t->c;
    int64_t *next = c->count;
    for (int64_t i = c->begin; i < c->end; i++) {
        int64_t k = group_of(c, i);
        if (k < 0) continue;
        int64_t at = next[k]++;
        t->sscore[at] = t->score[i];
        t->sdoc[at] = t->doc[i];
    }
    return NULL;
}

typedef struct {
    double *sscore;
    int64_t *sdoc, *value, *query, *rank;
    const int64_t *offsets, *joffsets, *jdoc, *jvalue;
    int64_t missing, first, last; /* queries first..last-1 */
    int memory;                   /* the buffers could not be had */
} AlignQueries;

static void *align_queries(void *arg) {
    AlignQueries *t = arg;
    int64_t longest = 1;
    for (int64_t q = t->first; q < t->last; q++)
        if (t->offsets[q + 1] - t->offsets[q] > longest) longest = t->offsets[q + 1] - t->offsets[q];
    Keyed *buf = malloc(sizeof(Keyed) * 2 * (size_t)longest);
    int64_t *copy = malloc(sizeof(int64_t) * 2 * (size_t)longest);
    if (buf == NULL || copy == NULL) {
        free(buf);
        free(copy);
        t->memory = 1;
        return NULL;
    }
    for (int64_t q = t->first; q < t->last; q++) {
        int64_t lo = t->offsets[q], hi = t->offsets[q + 1], jlo = t->joffsets[q], jhi = t->joffsets[q + 1];
        if (!descending(t->sscore, lo, hi)) order_query(t->sscore, t->sdoc, lo, hi, buf, copy);
        int few = jhi - jlo <= 16;
        for (int64_t i = lo; i < hi; i++) {
            t->query[i] = q;
            t->rank[i] = i - lo + 1;
            t->value[i] = few ? judged_value_short(t->jdoc, t->jvalue, jlo, jhi, t->sdoc[i], t->missing)
                              : judged_value(t->jdoc, t->jvalue, jlo, jhi, t->sdoc[i], t->missing);
        }
    }
    free(buf);
    free(copy);
    return NULL;
}

/* align_rows(code, code_query, score, doc, judged_offsets, judged_doc, judged_value, missing,
 *            sorted_score, sorted_doc, value, row_query, rank, offsets, threads) -> rows kept
 *
 * Row i belongs to query code_query[code[i]] (-1: the row is left out), of num_queries = len(offsets) - 1. The kept
 * rows grouped by query (in input order: a counting sort), each query's rows ordered by (score descending, input
 * position ascending), and written in that order: their scores, docs, the value of their doc among their query's
 * judgments (judged_doc[judged_offsets[q]..judged_offsets[q+1]-1], ascending; ``missing`` where absent), their
 * query and their rank (1-based); offsets as group_order's. Outputs hold len(code) rows, the first ``rows kept``
 * written. The same as group_order, a gather of the docs, lookup and the ranks (rankwise.rowops.align_rows). */
static PyObject *align_rows(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[14];
    long long missing;
    int requested, got = 0;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*Lw*w*w*w*w*w*i", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                          &missing, &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &requested))
        return NULL;
    got = 13;
    PyObject *result = NULL;
    Py_ssize_t n = v[0].len / 8, num_codes = v[1].len / 8, num_queries = v[12].len / 8 - 1, m = v[5].len / 8;
    if (num_queries < 0 || !check(&v[0], 8, n, "code") || !check(&v[1], 8, num_codes, "code_query") ||
        !check(&v[2], 8, n, "score") || !check(&v[3], 8, n, "doc") ||
        !check(&v[4], 8, num_queries + 1, "judged_offsets") || !check(&v[5], 8, m, "judged_doc") ||
        !check(&v[6], 8, m, "judged_value"))
        goto done;
    for (int i = 7; i < 12; i++)
        if (!check(&v[i], 8, n, "sorted_score, sorted_doc, value, row_query and rank")) goto done;
    const int64_t *joffsets = v[4].buf;
    if (joffsets[0] != 0 || joffsets[num_queries] != m) {
        PyErr_SetString(PyExc_ValueError, "judged_offsets must run from 0 to len(judged_doc)");
        goto done;
    }
    int64_t *offsets = v[12].buf;
    int parts = tasks_for_rows(requested, n);
    int64_t *counts = calloc((size_t)parts * (size_t)(num_queries ? num_queries : 1), sizeof(int64_t));
    if (counts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int ok, memory = 0;
    Py_BEGIN_ALLOW_THREADS
    CountTask sorts[MAX_THREADS];
    ok = count_tasks(sorts, parts, v[0].buf, v[1].buf, num_codes, 0, n, num_queries, counts);
    if (ok) {
        first_positions(sorts, parts, num_queries, offsets);
        AlignPlace places[MAX_THREADS];
        for (int t = 0; t < parts; t++)
            places[t] = (AlignPlace){&sorts[t], v[2].buf, v[3].buf, v[8].buf, v[7].buf};
        run_all(align_place, places, sizeof(AlignPlace), parts);
        int threads = thread_count(requested, offsets[num_queries]);
        AlignQueries tasks[MAX_THREADS];
        for (int t = 0; t < threads; t++)
            tasks[t] = (AlignQueries){v[7].buf, v[8].buf, v[9].buf, v[10].buf, v[11].buf, offsets, joffsets,
                                      v[5].buf, v[6].buf, (int64_t)missing,
                                      range_start(offsets, num_queries, t, threads),
                                      range_start(offsets, num_queries, t + 1, threads), 0};
        run_all(align_queries, tasks, sizeof(AlignQueries), threads);
        for (int t = 0; t < threads; t++) memory |= tasks[t].memory;
    }
    Py_END_ALLOW_THREADS
    free(counts);
    if (memory) {
        PyErr_NoMemory();
        goto done;
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "a code or its query lies outside code_query or the queries");
        goto done;
    }
    result = PyLong_FromLongLong((long long)offsets[num_queries]);
done:
    for (int i = 0; i < got; i++) PyBuffer_Release(&v[i]);
    return result;
}

typedef struct {
    const int64_t *ids;
    int64_t *table, *out, lowest, span, begin, end;
    int32_t *out32; /* int32 codes instead of out */
    int bad;
} TableTask;

/* Rows begin..end-1: mark each id's slot (out and out32 NULL) or read each id's code from its slot. */
static void *table_rows(void *arg) {
    TableTask *t = arg;
    for (int64_t i = t->begin; i < t->end; i++) {
        uint64_t at = (uint64_t)(t->ids[i] - t->lowest);
        if (at >= (uint64_t)t->span) {
            t->bad = 1;
            return NULL;
        }
        if (t->out != NULL)
            t->out[i] = t->table[at];
        else if (t->out32 != NULL)
            t->out32[i] = (int32_t)t->table[at];
        else
            t->table[at] = 1;
    }
    return NULL;
}

/* table_codes(ids, lowest, table, out, threads)
 *
 * Integer ids coded through a table over their range (see rankwise.rowops.id_codes): with out None, table[id -
 * lowest] = 1 for every id (marking those present; threads may write the same slot, always 1); else out[i] =
 * table[ids[i] - lowest], out int64 or int32 (the caller knows the codes fit). Every id must lie in lowest..lowest
 * + len(table) - 1. Rows split over ``threads``. */
static PyObject *table_codes(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer ids_v, table_v, out_v = {0};
    long long lowest;
    PyObject *out_obj;
    int requested;
    if (!PyArg_ParseTuple(args, "y*Lw*Oi", &ids_v, &lowest, &table_v, &out_obj, &requested)) return NULL;
    PyObject *result = NULL;
    int have_out = out_obj != Py_None;
    if (have_out && PyObject_GetBuffer(out_obj, &out_v, PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&ids_v);
        PyBuffer_Release(&table_v);
        return NULL;
    }
    Py_ssize_t n = ids_v.len / 8;
    int narrow = have_out && out_v.itemsize == 4;
    if (!check(&ids_v, 8, n, "ids") || (have_out && !check(&out_v, narrow ? 4 : 8, n, "out"))) goto done;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    int threads = thread_count(requested, n);
    TableTask tasks[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        tasks[t] = (TableTask){ids_v.buf, table_v.buf, have_out && !narrow ? out_v.buf : NULL, (int64_t)lowest,
                               (int64_t)(table_v.len / 8), n / threads * t, t + 1 == threads ? n : n / threads * (t + 1),
                               narrow ? out_v.buf : NULL, 0};
    run_all(table_rows, tasks, sizeof(TableTask), threads);
    for (int t = 0; t < threads; t++) bad |= tasks[t].bad;
    Py_END_ALLOW_THREADS
    result = none_unless(bad, "an id lies outside the table's range");
done:
    PyBuffer_Release(&ids_v);
    PyBuffer_Release(&table_v);
    if (have_out) PyBuffer_Release(&out_v);
    return result;
}

/* segment_sums(values, offsets, mask, out, threads)
 *
 * out[q] = the sum of values[offsets[q]..offsets[q+1]-1] (where mask, when mask is not None), added one row after
 * the other in row order: numpy's bincount over rows grouped by query adds the same numbers in the same order, so
 * the sums are bit-identical to it. values: float64 or bool (1 byte); mask: bool (1 byte). Queries split over
 * ``threads`` threads. */
typedef struct {
    const double *values;
    const uint8_t *flags, *mask;
    const int64_t *offsets;
    double *out;
    int64_t first, last;
    int64_t *running; /* not NULL: running counts of flags per row instead (segment_counts) */
} SumTask;

static void *sum_segments(void *arg) {
    SumTask *t = arg;
    if (t->running != NULL) {
        for (int64_t q = t->first; q < t->last; q++) {
            int64_t count = 0;
            for (int64_t i = t->offsets[q]; i < t->offsets[q + 1]; i++) t->running[i] = count += t->flags[i] != 0;
        }
        return NULL;
    }
    for (int64_t q = t->first; q < t->last; q++) {
        double total = 0.0;
        for (int64_t i = t->offsets[q]; i < t->offsets[q + 1]; i++)
            if (t->mask == NULL || t->mask[i]) total += t->values != NULL ? t->values[i] : (double)(t->flags[i] != 0);
        t->out[q] = total;
    }
    return NULL;
}

/* Offsets of num_queries queries that rise from 0 to n (else an error set, 0). */
static int rising(const int64_t *offsets, Py_ssize_t num_queries, Py_ssize_t n) {
    for (Py_ssize_t q = 0; q < num_queries; q++)
        if (offsets[0] != 0 || offsets[q + 1] < offsets[q] || offsets[num_queries] != n) {
            PyErr_SetString(PyExc_ValueError, "offsets must rise from 0 to the number of rows");
            return 0;
        }
    return 1;
}

/* sum_segments over queries proto.first..proto.last-1, split over threads (each a copy of proto with its range). */
static void run_segments(SumTask proto, int requested) {
    Py_BEGIN_ALLOW_THREADS
    int threads = thread_count(requested, proto.offsets[proto.last]);
    SumTask tasks[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        tasks[t] = proto;
        tasks[t].first = range_start(proto.offsets, proto.last, t, threads);
        tasks[t].last = range_start(proto.offsets, proto.last, t + 1, threads);
    }
    run_all(sum_segments, tasks, sizeof(SumTask), threads);
    Py_END_ALLOW_THREADS
}

static PyObject *segment_sums(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer values_v, offsets_v, out_v, mask_v = {0};
    PyObject *mask_obj;
    int requested;
    if (!PyArg_ParseTuple(args, "y*y*Ow*i", &values_v, &offsets_v, &mask_obj, &out_v, &requested)) return NULL;
    PyObject *result = NULL;
    int have_mask = optional_buffer(mask_obj, &mask_v, PyBUF_SIMPLE);
    if (have_mask < 0) goto done;
    Py_ssize_t num_queries = out_v.len / 8;
    if (!check(&out_v, 8, num_queries, "out") || !check(&offsets_v, 8, num_queries + 1, "offsets")) goto done;
    const int64_t *offsets = offsets_v.buf;
    Py_ssize_t n = offsets[num_queries];
    int flags = values_v.itemsize == 1;
    if (!check(&values_v, flags ? 1 : 8, n, "values") || (have_mask && !check(&mask_v, 1, n, "mask"))) goto done;
    if (!rising(offsets, num_queries, n)) goto done;
    run_segments((SumTask){flags ? NULL : values_v.buf, flags ? values_v.buf : NULL, have_mask ? mask_v.buf : NULL,
                           offsets, out_v.buf, 0, num_queries, NULL}, requested);
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&values_v);
    PyBuffer_Release(&offsets_v);
    PyBuffer_Release(&out_v);
    if (have_mask > 0) PyBuffer_Release(&mask_v);
    return result;
}

/* segment_counts(flags, offsets, out, threads)
 *
 * out[i] = how many of the rows of i's query up to and including i have flags set (bool, 1 byte): a running count
 * within each query offsets[q]..offsets[q+1]-1, the queries split over ``threads`` threads. */
static PyObject *segment_counts(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer flags_v, offsets_v, out_v;
    int requested;
    if (!PyArg_ParseTuple(args, "y*y*w*i", &flags_v, &offsets_v, &out_v, &requested)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = flags_v.len, num_queries = offsets_v.len / 8 - 1;
    if (num_queries < 0 || !check(&flags_v, 1, n, "flags") || !check(&out_v, 8, n, "out")) goto done;
    const int64_t *offsets = offsets_v.buf;
    if (!rising(offsets, num_queries, n)) goto done;
    run_segments((SumTask){NULL, flags_v.buf, NULL, offsets, NULL, 0, num_queries, out_v.buf}, requested);
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&flags_v);
    PyBuffer_Release(&offsets_v);
    PyBuffer_Release(&out_v);
    return result;
}

/* distinct_items(user, num_users, item, out_items, out_offsets, threads) -> distinct pairs
 *
 * The distinct (user, item) pairs grouped by user (0 <= user < num_users), each user's items ascending: a counting
 * sort by user placing only the items (on every core), each user's items sorted and their repeats dropped (users
 * split over threads), then packed. out_items holds len(item) values, the first ``distinct pairs`` written;
 * out_offsets num_users + 1 (the items of user u are out_items[out_offsets[u]..out_offsets[u+1]-1]). The same as
 * group_order by user with the items as key, then the first of each run of equal (user, item) kept. */
typedef struct {
    const CountTask *c;
    const int64_t *item;
    int64_t *placed;
} ItemPlace;

static void *place_items(void *arg) {
    ItemPlace *t = arg;
    const CountTask *c = t->c;
    int64_t *next = c->count;
    for (int64_t i = c->begin; i < c->end; i++) t->placed[next[c->key[i]]++] = t->item[i];
    return NULL;
}

static int compare_codes(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

typedef struct {
    int64_t *placed, *kept;
    const int64_t *offsets;
    int64_t first, last; /* users first..last-1 */
} ItemSort;

/* Each user's items sorted in place and their repeats dropped: kept[u] distinct items at the start of its rows. */
static void *sort_items(void *arg) {
    ItemSort *t = arg;
    for (int64_t u = t->first; u < t->last; u++) {
        int64_t lo = t->offsets[u], hi = t->offsets[u + 1], *x = t->placed;
        if (hi - lo <= 32) {
            for (int64_t i = lo + 1; i < hi; i++) {
                int64_t v = x[i], j = i - 1;
                while (j >= lo && x[j] > v) {
                    x[j + 1] = x[j];
                    j--;
                }
                x[j + 1] = v;
            }
        } else {
            qsort(x + lo, (size_t)(hi - lo), sizeof(int64_t), compare_codes);
        }
        int64_t k = 0;
        for (int64_t i = lo; i < hi; i++)
            if (k == 0 || x[i] != x[lo + k - 1]) x[lo + k++] = x[i];
        t->kept[u] = k;
    }
    return NULL;
}

typedef struct {
    const int64_t *placed, *offsets, *out_offsets;
    int64_t *out;
    int64_t first, last;
} ItemPack;

static void *pack_items(void *arg) {
    ItemPack *t = arg;
    for (int64_t u = t->first; u < t->last; u++)
        memcpy(t->out + t->out_offsets[u], t->placed + t->offsets[u],
               sizeof(int64_t) * (size_t)(t->out_offsets[u + 1] - t->out_offsets[u]));
    return NULL;
}

static PyObject *distinct_items(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer user_v, item_v, out_v, offsets_v;
    Py_ssize_t num_users;
    int requested;
    if (!PyArg_ParseTuple(args, "y*ny*w*w*i", &user_v, &num_users, &item_v, &out_v, &offsets_v, &requested))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = user_v.len / 8;
    int64_t *counts = NULL, *placed = NULL, *offsets = NULL, *kept = NULL;
    if (num_users < 0 || !check(&user_v, 8, n, "user") || !check(&item_v, 8, n, "item") ||
        !check(&out_v, 8, n, "out_items") || !check(&offsets_v, 8, num_users + 1, "out_offsets"))
        goto done;
    int parts = tasks_for_rows(requested, n), ok;
    counts = calloc((size_t)parts * (size_t)(num_users ? num_users : 1), sizeof(int64_t));
    placed = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    offsets = malloc(sizeof(int64_t) * (size_t)(num_users + 1));
    kept = malloc(sizeof(int64_t) * (size_t)(num_users ? num_users : 1));
    if (counts == NULL || placed == NULL || offsets == NULL || kept == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t *out_offsets = offsets_v.buf;
    Py_BEGIN_ALLOW_THREADS
    CountTask sorts[MAX_THREADS];
    ok = count_tasks(sorts, parts, user_v.buf, NULL, 0, 0, n, num_users, counts);
    if (ok) {
        first_positions(sorts, parts, num_users, offsets);
        ItemPlace places[MAX_THREADS];
        for (int t = 0; t < parts; t++) places[t] = (ItemPlace){&sorts[t], item_v.buf, placed};
        run_all(place_items, places, sizeof(ItemPlace), parts);
        int threads = thread_count(requested, n);
        ItemSort sorting[MAX_THREADS];
        for (int t = 0; t < threads; t++)
            sorting[t] = (ItemSort){placed, kept, offsets, range_start(offsets, num_users, t, threads),
                                    range_start(offsets, num_users, t + 1, threads)};
        run_all(sort_items, sorting, sizeof(ItemSort), threads);
        out_offsets[0] = 0;
        for (Py_ssize_t u = 0; u < num_users; u++) out_offsets[u + 1] = out_offsets[u] + kept[u];
        ItemPack packing[MAX_THREADS];
        for (int t = 0; t < threads; t++)
            packing[t] = (ItemPack){placed, offsets, out_offsets, out_v.buf, sorting[t].first, sorting[t].last};
        run_all(pack_items, packing, sizeof(ItemPack), threads);
    }
    Py_END_ALLOW_THREADS
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "a user lies outside 0..num_users-1");
        goto done;
    }
    result = PyLong_FromLongLong((long long)out_offsets[num_users]);
done:
    free(counts);
    free(placed);
    free(offsets);
    free(kept);
    PyBuffer_Release(&user_v);
    PyBuffer_Release(&item_v);
    PyBuffer_Release(&out_v);
    PyBuffer_Release(&offsets_v);
    return result;
}

static PyMethodDef methods[] = {
    {"group_order", group_order, METH_VARARGS, "Group rows by query and order each query (see rankwise.rowops)."},
    {"lookup", lookup, METH_VARARGS, "Look up each row's judged value (see rankwise.rowops)."},
    {"distinct_items", distinct_items, METH_VARARGS, "Each user's distinct items, ascending (see rankwise.rowops)."},
    {"segment_counts", segment_counts, METH_VARARGS, "Running counts of flags per query (see rankwise.rowops)."},
    {"segment_sums", segment_sums, METH_VARARGS, "Sum each query's rows in row order (see rankwise.rowops)."},
    {"align_rows", align_rows, METH_VARARGS, "Group, order and look up rows in one pass (see rankwise.rowops)."},
    {"table_codes", table_codes, METH_VARARGS, "Mark or read integer ids' slots in a table (see rankwise.rowops)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_rowops", "Compiled row operations of rankwise.rowops.",
                                    -1, methods};

int add_ranges(PyObject *m); /* engine/_rowranges.c */

PyMODINIT_FUNC PyInit__rowops(void) {
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && add_ranges(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

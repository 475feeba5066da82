/* The search for a (query, doc) pair given twice, for rankwise.io.scan and rankwise.io.table: first_repeated_pair.
 *
 * Rows already grouped by query (as runs are written) are searched in one pass with a stamp per doc; others are
 * grouped by query first (a counting sort on every core), then searched a range of queries per thread. The columns
 * come as their chunks (engine/_chunks.h) and are read in place. Part of the rankwise.io._trecscan extension (its
 * module init calls add_pairs).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "../engine/_threads.h"
#include "../engine/_chunks.h"

/* Repeated pairs: the rows grouped by query first (one counting sort, each row's doc carried with it, so that the
 * search reads the docs in order), then one thread per range of queries looks for a doc seen twice within each of
 * its queries (a stamp per doc: the position where it was last seen). */
typedef struct {
    int64_t num_docs, first, last; /* queries first..last-1 (after subtracting q0) */
    const int64_t *offsets;        /* where each query's rows begin in rows and docs */
    const int64_t *rows;           /* each position's row, or NULL (then found is any repeating position) */
    const uint32_t *docs;
    int64_t found;
    int memory;
} RepeatTask;

static void *find_repeats(void *arg) {
    RepeatTask *t = arg;
    int64_t *stamp = malloc(sizeof(int64_t) * (size_t)(t->num_docs ? t->num_docs : 1));
    if (stamp == NULL) {
        t->memory = 1;
        return NULL;
    }
    for (int64_t k = 0; k < t->num_docs; k++) stamp[k] = -1;
    for (int64_t k = t->first; k < t->last; k++) {
        int64_t from = t->offsets[k];
        for (int64_t at = from; at < t->offsets[k + 1]; at++) {
            uint32_t doc = t->docs[at];
            if (stamp[doc] >= from) { /* seen in this query: this row (the later: rows are in input order) repeats */
                int64_t row = t->rows != NULL ? t->rows[at] : at;
                if (t->found < 0 || row < t->found) t->found = row;
                if (t->rows == NULL) break;
            } else
                stamp[doc] = at;
        }
    }
    free(stamp);
    return NULL;
}

/* The rows of the two columns cut into segments, each lying in one chunk of either column and in one block of rows
 * (blocks: n / blocks rows each, one per thread), so that each is read as two plain arrays. */
typedef struct {
    const int64_t *q, *d;
    int64_t start, length; /* rows start..start+length-1 */
} Segment;

/* The segments (malloc'd; NULL for memory) and their count; first[b] is the first segment of block b (b ≤ blocks). */
static Segment *segments_of(const Chunks *qc, const Chunks *dc, int blocks, int64_t n, Py_ssize_t *count,
                            Py_ssize_t *first) {
    Segment *segments = malloc(sizeof(Segment) * (size_t)(qc->count + dc->count + blocks + 1));
    if (segments == NULL) return NULL;
    Py_ssize_t s = 0, a = 0, b = 0;
    int block = 0;
    first[0] = 0;
    for (int64_t at = 0; at < n;) {
        while (qc->starts[a + 1] <= at) a++; /* empty chunks skipped */
        while (dc->starts[b + 1] <= at) b++;
        while (block + 1 < blocks && n / blocks * (block + 1) <= at) first[++block] = s;
        int64_t end = qc->starts[a + 1] < dc->starts[b + 1] ? qc->starts[a + 1] : dc->starts[b + 1];
        if (block + 1 < blocks && n / blocks * (block + 1) < end) end = n / blocks * (block + 1);
        segments[s++] = (Segment){(const int64_t *)qc->parts[a] + (at - qc->starts[a]),
                                  (const int64_t *)dc->parts[b] + (at - dc->starts[b]), at, end - at};
        at = end;
    }
    while (block < blocks) first[++block] = s;
    *count = s;
    return segments;
}

/* The counting sort's placing pass (see count_tasks) over one segment: each row at its task's next position for its
 * query, with its doc (checked in range) and, where rows is not NULL, its row. */
typedef struct {
    const CountTask *c;
    const int64_t *d;
    int64_t d0, num_docs, row0; /* the segment's first row */
    int64_t *rows;
    uint32_t *docs;
    int bad;
} PlaceTask;

static void place_rows(PlaceTask *t) {
    const CountTask *c = t->c;
    const int64_t *q = c->key, *d = t->d, k0 = c->k0, d0 = t->d0, num_docs = t->num_docs, end = c->end, row0 = t->row0;
    int64_t *next = c->count, *rows = t->rows; /* locals: the stores may not alias the task */
    uint32_t *docs = t->docs;
    for (int64_t i = c->begin; i < end; i++) {
        int64_t j = d[i] - d0;
        if (j < 0 || j >= num_docs) {
            t->bad = 1;
            return;
        }
        int64_t at = next[q[i] - k0]++;
        if (rows != NULL) rows[at] = row0 + i;
        docs[at] = (uint32_t)j;
    }
}

/* One thread's block of segments, counted (count_keys) then placed (place_rows) with its own counts: blocks in row
 * order, so within a query the rows keep their order. */
typedef struct {
    const Segment *segments;
    Py_ssize_t first, last;
    CountTask sort;  /* k0, num_keys and this block's counts */
    PlaceTask place; /* d0, num_docs, rows, docs */
    int bad;
} BlockTask;

/* The counting task of segment s: its rows, with the block's counts (or next positions). */
static CountTask segment_sort(const BlockTask *t, Py_ssize_t s) {
    CountTask c = t->sort;
    c.key = t->segments[s].q;
    c.begin = 0;
    c.end = t->segments[s].length;
    return c;
}

static void *count_block(void *arg) {
    BlockTask *t = arg;
    for (Py_ssize_t s = t->first; s < t->last && !t->bad; s++) {
        CountTask c = segment_sort(t, s);
        count_keys(&c);
        t->bad |= c.bad;
    }
    return NULL;
}

static void *place_block(void *arg) {
    BlockTask *t = arg;
    for (Py_ssize_t s = t->first; s < t->last && !t->bad; s++) {
        CountTask c = segment_sort(t, s);
        PlaceTask p = t->place;
        p.c = &c;
        p.d = t->segments[s].d;
        p.row0 = t->segments[s].start;
        place_rows(&p);
        t->bad |= p.bad;
    }
    return NULL;
}

/* One search for a repeated pair (see first_repeated_pair) over the blocks of segments: with_rows 0 tells only
 * whether one exists (no row is placed: half the memory written), 1 finds the first row. Returns the row (or 1
 * without rows), -1 for none, -2 for a code out of range, -3 for memory. */
static int64_t repeated_pair(const Segment *segments, const Py_ssize_t *first, int sorters, int64_t n,
                             int64_t num_queries, int64_t num_docs, int64_t q0, int64_t d0, int with_rows) {
    /* for the search, each thread's doc stamps no larger than the rows */
    int threads = num_docs > n ? 1 : sorters;
    int64_t *offsets = calloc((size_t)num_queries + 1, sizeof(int64_t));
    int64_t *counts = calloc((size_t)sorters * (size_t)(num_queries ? num_queries : 1), sizeof(int64_t));
    int64_t *rows = with_rows ? malloc(sizeof(int64_t) * (size_t)(n ? n : 1)) : NULL;
    uint32_t *docs = malloc(sizeof(uint32_t) * (size_t)(n ? n : 1));
    BlockTask blocks[MAX_THREADS];
    CountTask sorts[MAX_THREADS];
    RepeatTask tasks[MAX_THREADS];
    int64_t found = -1;
    int memory = offsets == NULL || counts == NULL || (with_rows && rows == NULL) || docs == NULL, bad = 0;
    if (!memory) {
        /* grouped by query on every core, within a query the rows in input order */
        for (int t = 0; t < sorters; t++) {
            sorts[t] = (CountTask){NULL, NULL, q0, 0, 0, num_queries, 0, counts + (size_t)t * (size_t)num_queries, 0};
            blocks[t] = (BlockTask){segments, first[t], first[t + 1], sorts[t],
                                    (PlaceTask){NULL, NULL, d0, num_docs, 0, rows, docs, 0}, 0};
        }
        run_all(count_block, blocks, sizeof(BlockTask), sorters);
        for (int t = 0; t < sorters; t++) bad |= blocks[t].bad;
        if (!bad) {
            first_positions(sorts, sorters, num_queries, offsets);
            run_all(place_block, blocks, sizeof(BlockTask), sorters);
            for (int t = 0; t < sorters; t++) bad |= blocks[t].bad;
        }
        if (!bad) {
            for (int t = 0; t < threads; t++)
                tasks[t] = (RepeatTask){num_docs, range_start(offsets, num_queries, t, threads),
                                        range_start(offsets, num_queries, t + 1, threads), offsets, rows, docs, -1, 0};
            run_all(find_repeats, tasks, sizeof(RepeatTask), threads);
            for (int t = 0; t < threads; t++) {
                memory |= tasks[t].memory;
                if (tasks[t].found >= 0 && (found < 0 || tasks[t].found < found)) found = tasks[t].found;
            }
        }
    }
    free(docs);
    free(offsets);
    free(counts);
    free(rows);
    return bad ? -2 : memory ? -3 : (found >= 0 && !with_rows) ? 1 : found;
}

/* The search for rows already grouped by query (each query's rows one run, as runs are written): no sort, one pass
 * over the segments with a stamp per doc. Returns the first repeating row, -1 for none, -2 for a code out of range,
 * -3 for memory, -4 when the rows are not grouped (a query's rows in two runs). */
static int64_t repeated_pair_grouped(const Segment *segments, Py_ssize_t count, int64_t num_queries, int64_t num_docs,
                                     int64_t q0, int64_t d0) {
    uint8_t *seen = calloc((size_t)(num_queries ? num_queries : 1), 1);
    int64_t *stamp = malloc(sizeof(int64_t) * (size_t)(num_docs ? num_docs : 1));
    if (seen == NULL || stamp == NULL) {
        free(seen);
        free(stamp);
        return -3;
    }
    for (int64_t k = 0; k < num_docs; k++) stamp[k] = -1;
    int64_t found = -1, start = 0, previous = 0;
    for (Py_ssize_t s = 0; s < count && found == -1; s++) {
        const int64_t *q = segments[s].q, *d = segments[s].d, row0 = segments[s].start;
        for (int64_t i = 0; i < segments[s].length; i++) {
            int64_t k = q[i] - q0, j = d[i] - d0;
            if (k < 0 || k >= num_queries || j < 0 || j >= num_docs) {
                found = -2;
                break;
            }
            if (row0 + i == 0 || q[i] != previous) { /* a run of the query starts: its first unless seen before */
                if (seen[k]) {
                    found = -4;
                    break;
                }
                seen[k] = 1;
                start = row0 + i;
                previous = q[i];
            }
            if (stamp[j] >= start) {
                found = row0 + i;
                break;
            }
            stamp[j] = row0 + i;
        }
    }
    free(seen);
    free(stamp);
    return found;
}

/* first_repeated_pair(query_chunks, num_queries, doc_chunks, num_docs, threads=1, q0=0, d0=0) -> int: the first row
 * whose (query, doc) pair occurs in an earlier row, or -1. The two columns come as tuples of int64 buffers, their
 * chunks (see _chunks.h), read in place: query q0 + k, k < num_queries, and doc d0 + j, j < num_docs (< 2^32; ids in
 * a narrow range are their own codes). Rows grouped by query are searched in one pass; others are grouped first (a
 * thread per block of rows, at most one per 1 M rows), searched without rows, and the first row found only where
 * there is one. */
static PyObject *first_repeated_pair(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *q_obj, *d_obj;
    Py_ssize_t num_queries, num_docs;
    int requested = 1;
    long long q0 = 0, d0 = 0;
    if (!PyArg_ParseTuple(args, "OnOn|iLL", &q_obj, &num_queries, &d_obj, &num_docs, &requested, &q0, &d0)) return NULL;
    PyObject *result = NULL;
    Chunks qc, dc = {0, 0, NULL, NULL, NULL};
    if (!chunks_get(q_obj, &qc, "first_repeated_pair") || !chunks_get(d_obj, &dc, "first_repeated_pair")) goto done;
    int64_t n = qc.starts[qc.count];
    if (dc.starts[dc.count] != n || num_queries < 0 || num_docs < 0 || (int64_t)num_docs > (int64_t)UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "bad arguments");
        goto done;
    }
    int64_t found;
    Py_BEGIN_ALLOW_THREADS
    int sorters = tasks_for_rows(requested, n);
    Py_ssize_t count, first[MAX_THREADS + 1];
    Segment *segments = segments_of(&qc, &dc, sorters, n, &count, first);
    found = segments == NULL ? -3 : num_docs <= n ? repeated_pair_grouped(segments, count, num_queries, num_docs, q0, d0) : -4;
    if (found == -4) {
        found = repeated_pair(segments, first, sorters, n, num_queries, num_docs, q0, d0, 0);
        if (found >= 0) found = repeated_pair(segments, first, sorters, n, num_queries, num_docs, q0, d0, 1);
    }
    free(segments);
    Py_END_ALLOW_THREADS
    if (found == -2) {
        PyErr_SetString(PyExc_ValueError, "code out of range");
        goto done;
    }
    if (found == -3) {
        PyErr_NoMemory();
        goto done;
    }
    result = PyLong_FromSsize_t((Py_ssize_t)found);
done:
    chunks_release(&qc);
    chunks_release(&dc);
    return result;
}

static PyMethodDef pair_methods[] = {
    {"first_repeated_pair", first_repeated_pair, METH_VARARGS, "The first row repeating a (query, doc) pair, or -1."},
    {NULL, NULL, 0, NULL},
};

/* Adds first_repeated_pair to the module ``m``; 0 on success, -1 with an exception set. */
int add_pairs(PyObject *m) { return PyModule_AddFunctions(m, pair_methods); }

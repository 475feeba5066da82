/* Compiled row operations for rankwise.rowops over query ranges (rankwise.pipeline.partitioned): the rows of a
 * range of query codes (range_rows), and the rows per code (code_counts). Part of the rankwise.engine._rowops
 * extension (its module init calls add_ranges); rankwise/rowops.py holds the numpy version of each.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include "_threads.h"
#include <stdint.h>
#include <stdlib.h>

#include "_buffers.h"
#include "_chunks.h"

/* range_rows(query, doc, low, high, rows, query_out, doc_out, threads, parts, value_out)
 *
 * The rows whose query code lies in low..high-1, in row order (see rankwise.rowops.range_rows): rows[j] is the
 * j-th such row, query_out[j] its query code - low and doc_out[j] its doc code, as int64, value_out[j] its value. query and doc:
 * int32 codes; rows, query_out and doc_out: int64, as many as there are such rows; parts: a tuple of buffers of
 * 8-byte values (float64 or int64, copied as they are) holding the values of all rows one after the other (a
 * column's chunks), value_out as long as rows. Each thread counts the rows of its block, then writes them after
 * those of the blocks before it. */
typedef struct {
    const int32_t *query, *doc;
    int64_t low, high, begin, end, count, at;
    int64_t *rows, *query_out, *doc_out;
    const uint64_t *const *parts;
    const int64_t *starts; /* parts[c] holds rows starts[c]..starts[c+1]-1 */
    uint64_t *value_out;
} RangeTask;

static void *count_range(void *arg) {
    RangeTask *t = arg;
    uint64_t width = (uint64_t)(t->high - t->low);
    int64_t count = 0;
    for (int64_t i = t->begin; i < t->end; i++) count += (uint64_t)((int64_t)t->query[i] - t->low) < width;
    t->count = count;
    return NULL;
}

static void *fill_range(void *arg) {
    RangeTask *t = arg;
    uint64_t width = (uint64_t)(t->high - t->low);
    int64_t j = t->at, c = 0;
    while (t->begin < t->end && t->begin >= t->starts[c + 1]) c++;
    for (int64_t i = t->begin; i < t->end; i++)
        if ((uint64_t)((int64_t)t->query[i] - t->low) < width) {
            while (i >= t->starts[c + 1]) c++;
            t->rows[j] = i;
            t->query_out[j] = (int64_t)t->query[i] - t->low;
            t->doc_out[j] = t->doc[i];
            t->value_out[j] = t->parts[c][i - t->starts[c]];
            j++;
        }
    return NULL;
}

static PyObject *range_rows(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer query_v, doc_v, rows_v, query_out_v, doc_out_v, value_out_v;
    long long low, high;
    int requested;
    PyObject *parts_obj;
    if (!PyArg_ParseTuple(args, "y*y*LLw*w*w*iOw*", &query_v, &doc_v, &low, &high, &rows_v, &query_out_v,
                          &doc_out_v, &requested, &parts_obj, &value_out_v))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = query_v.len / 4, m = rows_v.len / 8;
    Chunks values;
    if (!chunks_get(parts_obj, &values, "range_rows")) goto done;
    if (!check(&query_v, 4, n, "query") || !check(&doc_v, 4, n, "doc") || !check(&rows_v, 8, m, "rows") ||
        !check(&query_out_v, 8, m, "query_out") || !check(&doc_out_v, 8, m, "doc_out") ||
        !check(&value_out_v, 8, m, "value_out"))
        goto done;
    if (values.starts[values.count] != n) {
        PyErr_Format(PyExc_ValueError, "range_rows: the parts hold %lld values, not %zd",
                     (long long)values.starts[values.count], n);
        goto done;
    }
    int64_t total = 0;
    Py_BEGIN_ALLOW_THREADS
    int threads = thread_count(requested, n);
    RangeTask tasks[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        tasks[t] = (RangeTask){query_v.buf, doc_v.buf, (int64_t)low, high > low ? (int64_t)high : (int64_t)low,
                               n / threads * t, t + 1 == threads ? n : n / threads * (t + 1), 0, 0,
                               rows_v.buf, query_out_v.buf, doc_out_v.buf, values.parts, values.starts,
                               value_out_v.buf};
    run_all(count_range, tasks, sizeof(RangeTask), threads);
    for (int t = 0; t < threads; t++) {
        tasks[t].at = total;
        total += tasks[t].count;
    }
    if (total == m) run_all(fill_range, tasks, sizeof(RangeTask), threads);
    Py_END_ALLOW_THREADS
    if (total != m) {
        PyErr_Format(PyExc_ValueError, "range_rows: %lld rows lie in the range, room for %zd", (long long)total, m);
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    chunks_release(&values);
    PyBuffer_Release(&query_v);
    PyBuffer_Release(&doc_v);
    PyBuffer_Release(&rows_v);
    PyBuffer_Release(&query_out_v);
    PyBuffer_Release(&doc_out_v);
    PyBuffer_Release(&value_out_v);
    return result;
}

/* code_counts(codes, out)
 *
 * out[c] = how many of the int32 ``codes`` equal c (see rankwise.rowops.code_counts): numpy's bincount without the
 * int64 copy of the codes it makes first. Every code must lie in 0..len(out)-1; out starts zeroed. */
static PyObject *code_counts(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer codes_v, out_v;
    if (!PyArg_ParseTuple(args, "y*w*", &codes_v, &out_v)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = codes_v.len / 4, size = out_v.len / 8;
    if (!check(&codes_v, 4, n, "codes") || !check(&out_v, 8, size, "out")) goto done;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    const int32_t *codes = codes_v.buf;
    int64_t *out = out_v.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t c = (uint32_t)codes[i];
        if (c >= (uint64_t)size) {
            bad = 1;
            break;
        }
        out[c]++;
    }
    Py_END_ALLOW_THREADS
    result = none_unless(bad, "a code lies outside 0..len(out)-1");
done:
    PyBuffer_Release(&codes_v);
    PyBuffer_Release(&out_v);
    return result;
}

static PyMethodDef range_methods[] = {
    {"code_counts", code_counts, METH_VARARGS, "How many rows hold each int32 code (see rankwise.rowops)."},
    {"range_rows", range_rows, METH_VARARGS, "The rows whose query code lies in a range (see rankwise.rowops)."},
    {NULL, NULL, 0, NULL},
};

/* Adds range_rows and code_counts to the module ``m``; 0 on success, -1 with an exception set. */
int add_ranges(PyObject *m) { return PyModule_AddFunctions(m, range_methods); }

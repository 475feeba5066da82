/* Compiled row operations for rankwise.rowops: grouping rows by query, ordering each query, looking up grades.
 *
 * Plain C over buffers (the buffer protocol, no numpy headers): Python allocates every output, these functions
 * fill them with the GIL released. rankwise/rowops.py holds the numpy version of each function, which defines
 * what they compute; tests/engine/test_rowops.py checks that both agree.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Does row a come before row b within its query: higher score first, then lower key. */
static inline int before(double score_a, int64_t key_a, double score_b, int64_t key_b) {
    return score_a > score_b || (score_a == score_b && key_a < key_b);
}

/* Sort rows lo..hi-1 of the parallel arrays (score, key, row) by (score descending, key ascending). */
static void sort_segment(double *score, int64_t *key, int64_t *row, int64_t lo, int64_t hi) {
    while (hi - lo > 24) { /* quicksort with a median-of-three pivot; the shorter side recursively */
        int64_t mid = lo + (hi - lo) / 2, last = hi - 1;
        int64_t candidates[3] = {lo, mid, last};
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2 - i; j++) {
                int64_t x = candidates[j], y = candidates[j + 1];
                if (before(score[y], key[y], score[x], key[x])) {
                    candidates[j] = y;
                    candidates[j + 1] = x;
                }
            }
        double pivot_score = score[candidates[1]];
        int64_t pivot_key = key[candidates[1]];
        int64_t i = lo, j = hi - 1;
        while (i <= j) {
            while (before(score[i], key[i], pivot_score, pivot_key)) i++;
            while (before(pivot_score, pivot_key, score[j], key[j])) j--;
            if (i <= j) {
                double s = score[i]; score[i] = score[j]; score[j] = s;
                int64_t k = key[i]; key[i] = key[j]; key[j] = k;
                int64_t r = row[i]; row[i] = row[j]; row[j] = r;
                i++;
                j--;
            }
        }
        if (j + 1 - lo < hi - i) {
            sort_segment(score, key, row, lo, j + 1);
            lo = i;
        } else {
            sort_segment(score, key, row, i, hi);
            hi = j + 1;
        }
    }
    for (int64_t i = lo + 1; i < hi; i++) { /* insertion sort for short runs */
        double s = score[i];
        int64_t k = key[i], r = row[i], j = i - 1;
        while (j >= lo && before(s, k, score[j], key[j])) {
            score[j + 1] = score[j];
            key[j + 1] = key[j];
            row[j + 1] = row[j];
            j--;
        }
        score[j + 1] = s;
        key[j + 1] = k;
        row[j + 1] = r;
    }
}

/* Are rows lo..hi-1 already in order (runs written in rank order, rows grouped in input order)? */
static int in_order(const double *score, const int64_t *key, int64_t lo, int64_t hi) {
    for (int64_t i = lo + 1; i < hi; i++)
        if (before(score[i], key[i], score[i - 1], key[i - 1])) return 0;
    return 1;
}

static int check(Py_buffer *view, Py_ssize_t itemsize, Py_ssize_t count, const char *name) {
    if (view->itemsize != itemsize || view->len != itemsize * count) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items of %zd bytes", name, count, itemsize);
        return 0;
    }
    return 1;
}

/* group_order(qidx, num_queries, score, key, order, sorted_score, sorted_key, offsets)
 *
 * Rows grouped by query index (0 <= qidx < num_queries, rows of a query in input order: a counting sort), then
 * each query's rows ordered by (score descending, key ascending). Writes the row order, the scores and keys in
 * that order, and offsets (num_queries + 1: the rows of query q are offsets[q]..offsets[q+1]-1). */
static PyObject *group_order(PyObject *self, PyObject *args) {
    Py_buffer qidx_v, score_v, key_v, order_v, sscore_v, skey_v, offsets_v;
    Py_ssize_t num_queries;
    if (!PyArg_ParseTuple(args, "y*ny*y*w*w*w*w*", &qidx_v, &num_queries, &score_v, &key_v, &order_v, &sscore_v,
                          &skey_v, &offsets_v))
        return NULL;
    Py_ssize_t n = qidx_v.len / 8;
    PyObject *result = NULL;
    if (!check(&qidx_v, 8, n, "qidx") || !check(&score_v, 8, n, "score") || !check(&key_v, 8, n, "key") ||
        !check(&order_v, 8, n, "order") || !check(&sscore_v, 8, n, "sorted_score") ||
        !check(&skey_v, 8, n, "sorted_key") || !check(&offsets_v, 8, num_queries + 1, "offsets"))
        goto done;
    const int64_t *qidx = qidx_v.buf, *key = key_v.buf;
    const double *score = score_v.buf;
    int64_t *order = order_v.buf, *skey = skey_v.buf, *offsets = offsets_v.buf;
    double *sscore = sscore_v.buf;
    for (Py_ssize_t i = 0; i < n; i++)
        if (qidx[i] < 0 || qidx[i] >= num_queries) {
            PyErr_Format(PyExc_ValueError, "qidx[%zd] = %lld is outside 0..%zd", i, (long long)qidx[i],
                         num_queries - 1);
            goto done;
        }
    int64_t *next = malloc(sizeof(int64_t) * (num_queries + 1));
    if (next == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    memset(offsets, 0, sizeof(int64_t) * (num_queries + 1));
    for (Py_ssize_t i = 0; i < n; i++) offsets[qidx[i] + 1]++;
    for (Py_ssize_t q = 0; q < num_queries; q++) offsets[q + 1] += offsets[q];
    memcpy(next, offsets, sizeof(int64_t) * (num_queries + 1));
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t at = next[qidx[i]]++;
        order[at] = i;
        sscore[at] = score[i];
        skey[at] = key[i];
    }
    for (Py_ssize_t q = 0; q < num_queries; q++)
        if (!in_order(sscore, skey, offsets[q], offsets[q + 1])) sort_segment(sscore, skey, order, offsets[q], offsets[q + 1]);
    Py_END_ALLOW_THREADS
    free(next);
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&qidx_v);
    PyBuffer_Release(&score_v);
    PyBuffer_Release(&key_v);
    PyBuffer_Release(&order_v);
    PyBuffer_Release(&sscore_v);
    PyBuffer_Release(&skey_v);
    PyBuffer_Release(&offsets_v);
    return result;
}

/* lookup(qidx, doc, offsets, judged_doc, judged_value, missing, out)
 *
 * For each row (query index, doc code): the value of that doc among its query's judgments, or ``missing``.
 * The judgments of query q are judged_doc[offsets[q]..offsets[q+1]-1], sorted ascending (binary search). */
static PyObject *lookup(PyObject *self, PyObject *args) {
    Py_buffer qidx_v, doc_v, offsets_v, jdoc_v, jvalue_v, out_v;
    long long missing;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*Lw*", &qidx_v, &doc_v, &offsets_v, &jdoc_v, &jvalue_v, &missing, &out_v))
        return NULL;
    Py_ssize_t n = qidx_v.len / 8, m = jdoc_v.len / 8, num_queries = offsets_v.len / 8 - 1;
    PyObject *result = NULL;
    if (num_queries < 0 || !check(&qidx_v, 8, n, "qidx") || !check(&doc_v, 8, n, "doc") ||
        !check(&offsets_v, 8, num_queries + 1, "offsets") || !check(&jdoc_v, 8, m, "judged_doc") ||
        !check(&jvalue_v, 8, m, "judged_value") || !check(&out_v, 8, n, "out"))
        goto done;
    const int64_t *qidx = qidx_v.buf, *doc = doc_v.buf, *offsets = offsets_v.buf, *jdoc = jdoc_v.buf,
                  *jvalue = jvalue_v.buf;
    int64_t *out = out_v.buf;
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
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t lo = offsets[qidx[i]], hi = offsets[qidx[i] + 1], d = doc[i];
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (jdoc[mid] < d)
                lo = mid + 1;
            else
                hi = mid;
        }
        out[i] = (lo < offsets[qidx[i] + 1] && jdoc[lo] == d) ? jvalue[lo] : (int64_t)missing;
    }
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

static PyMethodDef methods[] = {
    {"group_order", group_order, METH_VARARGS, "Group rows by query and order each query (see rankwise.rowops)."},
    {"lookup", lookup, METH_VARARGS, "Look up each row's judged value (see rankwise.rowops)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_rowops", "Compiled row operations of rankwise.rowops.",
                                    -1, methods};

PyMODINIT_FUNC PyInit__rowops(void) { return PyModule_Create(&module); }

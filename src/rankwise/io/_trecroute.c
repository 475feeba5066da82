/* Compiled routing of a TREC run's lines by query, for runs larger than memory (rankwise.pipeline.routed).
 *
 * A Router reads a file in blocks of whole lines twice: Router.count gives every distinct query id a code (order of
 * first appearance) and counts its data lines; after Python has assigned each query a partition, Router.route
 * copies each data line of a block, bytes unchanged, to the part of its query's partition. Blank lines and lines
 * whose first field starts with "#" are no data lines (rankwise.io.trec's grammar: fields separated by runs of
 * " \t\r\v\f", lines ending at "\n"); nothing else is checked here: each partition is scanned afterwards
 * (rankwise.io.scan), and irregular input goes to the readers that name its line. The GIL is released while a block
 * is read. Part of the rankwise.io._trecscan extension (its module init calls add_router).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_dict.h"

typedef struct {
    PyObject_HEAD
    Dict queries;
    int64_t *counts; /* per code: data lines */
    int64_t counts_cap;
    int32_t *line_part; /* route's scratch: per line of the block, its part, or -1 (no data line) */
    int64_t line_cap;
} Router;

static void router_dealloc(Router *self) {
    dict_free(&self->queries);
    release(self->counts, sizeof(int64_t) * (size_t)self->counts_cap);
    release(self->line_part, sizeof(int32_t) * (size_t)self->line_cap);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The first field of the line p..eol-1: its start (*s) and length, 0 when the line is blank or a comment. */
static inline int32_t first_field(const char *p, const char *eol, const char **s) {
    while (p < eol && is_space(*p)) p++;
    if (p >= eol || *p == '#') return 0;
    *s = p;
    while (p < eol && !is_space(*p)) p++;
    return (int32_t)(p - *s);
}

/* 0: counted; 1: a query id not ASCII or holding a NUL (the Python readers decide); -1: out of memory. */
static int count_lines(Router *self, const char *data, int64_t n) {
    const char *p = data, *end = data + n;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p)), *s = NULL;
        if (eol == NULL) eol = end;
        int32_t len = first_field(p, eol, &s);
        p = eol + 1;
        if (len == 0) continue;
        if (!plain_ascii(s, len)) return 1;
        int64_t code = dict_code(&self->queries, s, len, hash_bytes(s, len));
        if (code < 0) return -1;
        if (code >= self->counts_cap) {
            int64_t cap = self->counts_cap ? self->counts_cap * 2 : 1024;
            int64_t *counts = grow(self->counts, sizeof(int64_t) * (size_t)self->counts_cap, sizeof(int64_t) * (size_t)cap);
            if (counts == NULL) return -1;
            self->counts = counts;
            self->counts_cap = cap;
        }
        self->counts[code]++;
    }
    return 0;
}

/* Router.count(block) -> status: 0 when every data line's query id is counted, 1 when one is not ASCII. */
static PyObject *router_count(Router *self, PyObject *args) {
    Py_buffer data_v;
    if (!PyArg_ParseTuple(args, "y*", &data_v)) return NULL;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = count_lines(self, data_v.buf, data_v.len);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data_v);
    if (status < 0) return PyErr_NoMemory();
    return PyLong_FromLong(status);
}

/* Router.ids() -> list[str]: the query ids in code order. */
static PyObject *router_ids(Router *self, PyObject *unused) {
    (void)unused;
    const Dict *d = &self->queries;
    PyObject *out = PyList_New((Py_ssize_t)d->count);
    for (int64_t c = 0; out != NULL && c < d->count; c++) {
        PyObject *text = PyUnicode_DecodeASCII(d->arena + d->start[c], d->len[c], "strict");
        if (text == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, (Py_ssize_t)c, text);
    }
    return out;
}

/* Router.counts(out) -> None: the data lines of each code into ``out`` (int64, one per query id). */
static PyObject *router_counts(Router *self, PyObject *args) {
    Py_buffer out_v;
    if (!PyArg_ParseTuple(args, "w*", &out_v)) return NULL;
    int64_t n = self->queries.count;
    if (out_v.len < (Py_ssize_t)(8 * n)) {
        PyBuffer_Release(&out_v);
        PyErr_SetString(PyExc_ValueError, "out holds fewer items than there are query ids");
        return NULL;
    }
    if (n) memcpy(out_v.buf, self->counts, sizeof(int64_t) * (size_t)n);
    PyBuffer_Release(&out_v);
    Py_RETURN_NONE;
}

/* Pass 1 of route: each line's part (-1: no data line) and each part's bytes (lines, each ending with "\n");
 * 0 when done, 1 when a query id was not counted or its partition is outside 0..parts-1, -1 out of memory. */
static int route_sizes(Router *self, const char *data, int64_t n, const int32_t *partition, int parts,
                       int64_t *sizes, int64_t *lines) {
    const char *p = data, *end = data + n;
    int64_t line = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p)), *s = NULL;
        if (eol == NULL) eol = end;
        if (line == self->line_cap) {
            int64_t cap = self->line_cap ? self->line_cap * 2 : 1 << 16;
            int32_t *grown = grow(self->line_part, sizeof(int32_t) * (size_t)self->line_cap, sizeof(int32_t) * (size_t)cap);
            if (grown == NULL) return -1;
            self->line_part = grown;
            self->line_cap = cap;
        }
        int32_t len = first_field(p, eol, &s), part = -1;
        if (len > 0) {
            if (self->queries.mask == 0) return 1;
            Slot *slot = dict_probe(&self->queries, s, len, hash_bytes(s, len));
            if (slot->tag == 0) return 1;
            part = partition[slot->code];
            if (part < 0 || part >= parts) return 1;
            sizes[part] += (eol - p) + 1;
        }
        self->line_part[line++] = part;
        p = eol + 1;
    }
    *lines = line;
    return 0;
}

/* Pass 2 of route: each data line copied to the end of its part (``at``: where each part is filled to). */
static void route_copy(const Router *self, const char *data, int64_t n, char **out, int64_t *at) {
    const char *p = data, *end = data + n;
    for (int64_t line = 0; p < end; line++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL) eol = end;
        int32_t part = self->line_part[line];
        if (part >= 0) {
            memcpy(out[part] + at[part], p, (size_t)(eol - p));
            at[part] += eol - p;
            out[part][at[part]++] = '\n';
        }
        p = eol + 1;
    }
}

/* Router.route(block, partition, parts) -> list of ``parts`` bytes: each part's data lines of the block, in order.
 * partition: int32 per query code (Router.ids order), each in 0..parts-1. */
static PyObject *router_route(Router *self, PyObject *args) {
    Py_buffer data_v, partition_v;
    int parts;
    if (!PyArg_ParseTuple(args, "y*y*i", &data_v, &partition_v, &parts)) return NULL;
    PyObject *result = NULL;
    int64_t *sizes = NULL, *at = NULL, lines = 0;
    char **out = NULL;
    if (parts < 1 || partition_v.len < (Py_ssize_t)(4 * self->queries.count)) {
        PyErr_SetString(PyExc_ValueError, "partition must give each query id a part, and parts be 1 or more");
        goto done;
    }
    sizes = calloc((size_t)parts, sizeof(int64_t));
    at = calloc((size_t)parts, sizeof(int64_t));
    out = calloc((size_t)parts, sizeof(char *));
    if (sizes == NULL || at == NULL || out == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = route_sizes(self, data_v.buf, data_v.len, partition_v.buf, parts, sizes, &lines);
    Py_END_ALLOW_THREADS
    if (status != 0) {
        if (status < 0) PyErr_NoMemory();
        else PyErr_SetString(PyExc_ValueError, "a query id of the block was not counted, or its partition is out of range");
        goto done;
    }
    result = PyList_New(parts);
    for (int p = 0; result != NULL && p < parts; p++) {
        PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizes[p]);
        if (bytes == NULL) Py_CLEAR(result);
        else {
            out[p] = PyBytes_AS_STRING(bytes);
            PyList_SET_ITEM(result, p, bytes);
        }
    }
    if (result != NULL) {
        Py_BEGIN_ALLOW_THREADS
        route_copy(self, data_v.buf, data_v.len, out, at);
        Py_END_ALLOW_THREADS
    }
done:
    free(sizes);
    free(at);
    free(out);
    PyBuffer_Release(&data_v);
    PyBuffer_Release(&partition_v);
    return result;
}

static PyObject *router_size(Router *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromLongLong((long long)self->queries.count);
}

static PyMethodDef router_methods[] = {
    {"count", (PyCFunction)router_count, METH_VARARGS, "Count a block's data lines per query id: status 0 or 1."},
    {"ids", (PyCFunction)router_ids, METH_NOARGS, "The query ids counted, in code order."},
    {"counts", (PyCFunction)router_counts, METH_VARARGS, "Each query id's data lines, into an int64 buffer."},
    {"size", (PyCFunction)router_size, METH_NOARGS, "How many distinct query ids were counted."},
    {"route", (PyCFunction)router_route, METH_VARARGS, "A block's data lines by partition: route(block, partition, parts)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject RouterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "rankwise.io._trecscan.Router",
    .tp_basicsize = sizeof(Router),
    .tp_dealloc = (destructor)router_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Counts a TREC run's lines per query id, then routes them to partitions (see the C source).",
    .tp_methods = router_methods,
    .tp_new = PyType_GenericNew,
};

/* Adds the Router type to the module ``m``; 0 on success, -1 with an exception set. */
int add_router(PyObject *m) {
    if (PyType_Ready(&RouterType) < 0) return -1;
    Py_INCREF(&RouterType);
    if (PyModule_AddObject(m, "Router", (PyObject *)&RouterType) < 0) {
        Py_DECREF(&RouterType);
        return -1;
    }
    return 0;
}

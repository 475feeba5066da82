/* A column handed over as its chunks: a tuple of buffers of 8-byte values (int64 or float64) holding the column's
 * rows one after the other (rankwise.io.table.Chunks.parts: a frame read from parquet has one chunk per row group).
 * Read in place, so a chunked column is never joined into one array.
 *
 * chunks_get(tuple, &c, who) takes the buffers (1, or 0 with an exception set: a buffer not of 8-byte items);
 * chunks_release(&c) gives them back (also after a failed get). c.parts[k] holds rows c.starts[k]..c.starts[k+1]-1;
 * c.starts[c.count] is the number of rows. */
#ifndef RANKWISE_CHUNKS_H
#define RANKWISE_CHUNKS_H

#include <Python.h>
#include <stdint.h>

typedef struct {
    Py_ssize_t count, got;
    Py_buffer *views;
    const uint64_t **parts;
    int64_t *starts;
} Chunks;

static void chunks_release(Chunks *c) {
    for (Py_ssize_t i = 0; i < c->got; i++) PyBuffer_Release(&c->views[i]);
    PyMem_Free(c->views);
    PyMem_Free(c->parts);
    PyMem_Free(c->starts);
    *c = (Chunks){0, 0, NULL, NULL, NULL};
}

static int chunks_get(PyObject *tuple, Chunks *c, const char *who) {
    *c = (Chunks){0, 0, NULL, NULL, NULL};
    if (!PyTuple_Check(tuple)) {
        PyErr_Format(PyExc_TypeError, "%s: chunks as a tuple of buffers", who);
        return 0;
    }
    c->count = PyTuple_GET_SIZE(tuple);
    c->views = PyMem_Calloc((size_t)c->count + 1, sizeof(Py_buffer));
    c->parts = PyMem_Calloc((size_t)c->count + 1, sizeof(uint64_t *));
    c->starts = PyMem_Calloc((size_t)c->count + 1, sizeof(int64_t));
    if (c->views == NULL || c->parts == NULL || c->starts == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    for (; c->got < c->count; c->got++) {
        Py_buffer *view = &c->views[c->got];
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(tuple, c->got), view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return 0;
        if (view->itemsize != 8) {
            c->got++;
            PyErr_Format(PyExc_ValueError, "%s: chunks of 8-byte values", who);
            return 0;
        }
        c->parts[c->got] = view->buf;
        c->starts[c->got + 1] = c->starts[c->got] + (int64_t)(view->len / 8);
    }
    return 1;
}

#endif

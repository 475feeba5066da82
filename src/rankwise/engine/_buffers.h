/* Checks, results and thread counts shared by the compiled row operations (engine/_rowops.c, _rowranges.c). */
#ifndef RANKWISE_BUFFERS_H
#define RANKWISE_BUFFERS_H

#include <Python.h>
#include <stdint.h>
#include "_threads.h"

/* 1 when ``view`` holds ``count`` items of ``itemsize`` bytes, else 0 with a ValueError naming ``name``. */
static inline int check(Py_buffer *view, Py_ssize_t itemsize, Py_ssize_t count, const char *name) {
    if (view->itemsize != itemsize || view->len != itemsize * count) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items of %zd bytes", name, count, itemsize);
        return 0;
    }
    return 1;
}

/* None, or NULL with a ValueError saying ``message`` where ``bad``. */
static inline PyObject *none_unless(int bad, const char *message) {
    if (bad) {
        PyErr_SetString(PyExc_ValueError, message);
        return NULL;
    }
    Py_RETURN_NONE;
}

#define ROWS_PER_THREAD 65536 /* fewer rows than this per thread: one thread does it */

/* Threads for ``rows`` rows: at most ``requested`` (1..MAX_THREADS), at least ROWS_PER_THREAD rows each. */
static inline int thread_count(int requested, int64_t rows) {
    int64_t most = rows / ROWS_PER_THREAD;
    int threads = requested < 1 ? 1 : (requested > MAX_THREADS ? MAX_THREADS : requested);
    if (most < threads) threads = most < 1 ? 1 : (int)most;
    return threads;
}

#endif

/* Work split over threads, shared by rankwise's C extensions (engine/_rowops.c, io/_trecscan.c). */
#ifndef RANKWISE_THREADS_H
#define RANKWISE_THREADS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_THREADS 64

/* Run fn over tasks[0..count-1] (count <= MAX_THREADS, each task ``size`` bytes), each in its own thread but the
 * first (in this one); a thread that cannot be had leaves its task to this one. */
static void run_all(void *(*fn)(void *), void *tasks, size_t size, int count) {
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int t = 1; t < count; t++) started[t] = pthread_create(&ids[t], NULL, fn, (char *)tasks + t * size) == 0;
    fn(tasks);
    for (int t = 1; t < count; t++) {
        if (started[t])
            pthread_join(ids[t], NULL);
        else
            fn((char *)tasks + t * size);
    }
}

/* The first position in lo..hi-1 of ``sorted`` (ascending) holding a value >= x, or hi: a binary search. */
static inline int64_t lower_bound(const int64_t *sorted, int64_t lo, int64_t hi, int64_t x) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Query q0 of thread t's range: the first query whose rows start at or after t/threads of all rows. */
static inline int64_t range_start(const int64_t *offsets, int64_t num_queries, int t, int threads) {
    if (t == 0) return 0;
    if (t == threads) return num_queries;
    return lower_bound(offsets, 0, num_queries, offsets[num_queries] / threads * t);
}

/* A counting sort by key on every core, over ranges of rows (one task per thread): count_keys counts each task's
 * rows per key; first_positions turns the counts into each task's first position per key, tasks in row order (so
 * within a key the rows keep their order), and sets the keys' offsets (num_keys + 1); the caller then places each
 * row of a task at that task's count[group_of(task, i)]++. A row's key is key[i] - k0 (checked in 0..num_keys-1),
 * or with a ``map``, map[key[i]] (key[i] checked in 0..num_map-1; a mapped key of -1 leaves the row out, any other
 * must lie in 0..num_keys-1). */
typedef struct {
    const int64_t *key, *map;
    int64_t k0, begin, end, num_keys, num_map; /* rows begin..end-1 */
    int64_t *count;                            /* per key: this task's rows, then its next position */
    int bad;                                   /* a key out of range */
} CountTask;

/* The key of row i of task t (-1: left out, -2: out of range). */
static inline int64_t group_of(const CountTask *t, int64_t i) {
    int64_t k;
    if (t->map != NULL) {
        if (t->key[i] < 0 || t->key[i] >= t->num_map) return -2;
        k = t->map[t->key[i]];
        if (k == -1) return -1;
    } else {
        k = t->key[i] - t->k0;
    }
    return k < 0 || k >= t->num_keys ? -2 : k;
}

static void *count_keys(void *arg) {
    CountTask *t = arg;
    int64_t *count = t->count;
    for (int64_t i = t->begin; i < t->end; i++) {
        int64_t k = group_of(t, i);
        if (k == -2) {
            t->bad = 1;
            return NULL;
        }
        if (k >= 0) count[k]++;
    }
    return NULL;
}

/* How many tasks share n rows: at most ``threads`` (1..MAX_THREADS), at most one per 1 M rows. */
static inline int tasks_for_rows(int threads, int64_t n) {
    int count = threads < 1 ? 1 : (threads > MAX_THREADS ? MAX_THREADS : threads);
    return n / (1 << 20) + 1 < count ? (int)(n / (1 << 20) + 1) : count;
}

/* ``parts`` tasks (tasks_for_rows) over rows 0..n-1 of ``key`` (``map`` of ``num_map`` keys, or NULL), each counted,
 * with its counts in ``counts`` (parts × num_keys, zeroed). 1 when every key is in range. */
static inline int count_tasks(CountTask *tasks, int parts, const int64_t *key, const int64_t *map, int64_t num_map,
                       int64_t k0, int64_t n, int64_t num_keys, int64_t *counts) {
    for (int t = 0; t < parts; t++)
        tasks[t] = (CountTask){key, map, k0, n / parts * t, t + 1 == parts ? n : n / parts * (t + 1), num_keys,
                               num_map, counts + (size_t)t * (size_t)num_keys, 0};
    run_all(count_keys, tasks, sizeof(CountTask), parts);
    int ok = 1;
    for (int t = 0; t < parts; t++) ok &= !tasks[t].bad;
    return ok;
}

static inline void first_positions(CountTask *tasks, int parts, int64_t num_keys, int64_t *offsets) {
    int64_t at = 0;
    for (int64_t k = 0; k < num_keys; k++) {
        offsets[k] = at;
        for (int t = 0; t < parts; t++) {
            int64_t c = tasks[t].count[k];
            tasks[t].count[k] = at;
            at += c;
        }
    }
    offsets[num_keys] = at;
}

#endif

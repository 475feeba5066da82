/* Ordering the rows of one query and finding a doc among its judgments: the sorts behind rankwise.rowops's compiled
 * group_order and align_rows (included by _rowops.c). */
#ifndef RANKWISE_SORTING_H
#define RANKWISE_SORTING_H

#include <stdint.h>
#include <string.h>

/* Does row a come before row b within its query: higher score first, then lower key. */
static inline int before(double score_a, int64_t key_a, double score_b, int64_t key_b) {
    return score_a > score_b || (score_a == score_b && key_a < key_b);
}

/* The key of position i: key[i], or the row itself where there is no key (rows ordered by input position). */
#define KEY(i) (key != NULL ? key[i] : row[i])

/* The score of position i: score[i], or 0 for every row where there is no score (rows ordered by key alone: no
 * array of zeros is made, moved or read). */
#define SCORE(i) (score != NULL ? score[i] : 0.0)

/* Sort rows lo..hi-1 of the parallel arrays (score, key, row) by (score descending, key ascending); key may be NULL
 * (the row is the key), and score NULL (every score 0). */
static void sort_segment(double *score, int64_t *key, int64_t *row, int64_t lo, int64_t hi) {
    while (hi - lo > 24) { /* quicksort with a median-of-three pivot; the shorter side recursively */
        int64_t mid = lo + (hi - lo) / 2, last = hi - 1;
        int64_t candidates[3] = {lo, mid, last};
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2 - i; j++) {
                int64_t x = candidates[j], y = candidates[j + 1];
                if (before(SCORE(y), KEY(y), SCORE(x), KEY(x))) {
                    candidates[j] = y;
                    candidates[j + 1] = x;
                }
            }
        double pivot_score = SCORE(candidates[1]);
        int64_t pivot_key = KEY(candidates[1]);
        int64_t i = lo, j = hi - 1;
        while (i <= j) {
            while (before(SCORE(i), KEY(i), pivot_score, pivot_key)) i++;
            while (before(pivot_score, pivot_key, SCORE(j), KEY(j))) j--;
            if (i <= j) {
                if (score != NULL) { double s = score[i]; score[i] = score[j]; score[j] = s; }
                if (key != NULL) { int64_t k = key[i]; key[i] = key[j]; key[j] = k; }
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
        double s = SCORE(i);
        int64_t r = row[i], k = key != NULL ? key[i] : r, j = i - 1;
        while (j >= lo && before(s, k, SCORE(j), KEY(j))) {
            if (score != NULL) score[j + 1] = score[j];
            if (key != NULL) key[j + 1] = key[j];
            row[j + 1] = row[j];
            j--;
        }
        if (score != NULL) score[j + 1] = s;
        if (key != NULL) key[j + 1] = k;
        row[j + 1] = r;
    }
}

/* Are rows lo..hi-1 already in order (runs written in rank order, rows grouped in input order)? */
static int in_order(const double *score, const int64_t *key, const int64_t *row, int64_t lo, int64_t hi) {
    for (int64_t i = lo + 1; i < hi; i++)
        if (before(SCORE(i), KEY(i), SCORE(i - 1), KEY(i - 1))) return 0;
    return 1;
}

/* The value of doc d among judgments lo..hi-1 (their docs ascending: a binary search), or ``missing``. */
static inline int64_t judged_value(const int64_t *jdoc, const int64_t *jvalue, int64_t lo, int64_t hi, int64_t d,
                                   int64_t missing) {
    int64_t at = lower_bound(jdoc, lo, hi, d);
    return (at < hi && jdoc[at] == d) ? jvalue[at] : missing;
}

/* The key of a score whose ascending order is the scores' descending order (its bits made sortable as an unsigned
 * number, then complemented; -0.0 keyed as 0.0, which it equals). */
static inline uint64_t descending_key(double score) {
    uint64_t bits;
    if (score == 0.0) score = 0.0;
    memcpy(&bits, &score, sizeof bits);
    bits = (bits >> 63) ? ~bits : bits | (1ULL << 63);
    return ~bits;
}

typedef struct {
    uint64_t key;
    int64_t place;
} Keyed;

/* Sort n pairs by key, equal keys keeping their order (least significant byte first: a stable counting pass per
 * byte, a byte the keys all share skipped); ``spare`` holds n pairs. Returns the buffer holding the result. */
static Keyed *radix_sort(Keyed *pairs, Keyed *spare, int64_t n) {
    int64_t count[8][256];
    memset(count, 0, sizeof count);
    for (int64_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++) count[b][(pairs[i].key >> (8 * b)) & 255]++;
    for (int b = 0; b < 8; b++) {
        if (count[b][(pairs[0].key >> (8 * b)) & 255] == n) continue; /* one value of this byte: nothing moves */
        int64_t at = 0;
        for (int v = 0; v < 256; v++) {
            int64_t c = count[b][v];
            count[b][v] = at;
            at += c;
        }
        for (int64_t i = 0; i < n; i++) spare[count[b][(pairs[i].key >> (8 * b)) & 255]++] = pairs[i];
        Keyed *swap = pairs;
        pairs = spare;
        spare = swap;
    }
    return pairs;
}

/* Are scores lo..hi-1 in descending order (equal ones in any order: they are in input order already)? */
static int descending(const double *score, int64_t lo, int64_t hi) {
    for (int64_t i = lo + 1; i < hi; i++)
        if (score[i] > score[i - 1]) return 0;
    return 1;
}

/* Order rows lo..hi-1 by score descending, equal scores in place order (the rows are placed in input order, and
 * both sorts are stable: no row index is needed to break ties): short queries by insertion over (key, place) pairs,
 * longer ones by a radix sort of their keys (no comparisons to mispredict); then scores and docs written in that
 * order. ``buf`` holds 2 (hi - lo) pairs, ``copy`` 2 (hi - lo) values (the rows' scores and docs as they were). */
#define INSERTION_ROWS 64
static void order_query(double *score, int64_t *doc, int64_t lo, int64_t hi, Keyed *buf, int64_t *copy) {
    int64_t n = hi - lo, *docs = copy;
    double *scores = (double *)(copy + n);
    for (int64_t i = 0; i < n; i++) {
        scores[i] = score[lo + i];
        docs[i] = doc[lo + i];
    }
    Keyed *sorted = buf;
    if (n <= INSERTION_ROWS) {
        for (int64_t i = 0; i < n; i++) {
            Keyed x = {descending_key(scores[i]), i};
            int64_t j = i - 1;
            while (j >= 0 && buf[j].key > x.key) { /* equal keys keep their places: ties in input order */
                buf[j + 1] = buf[j];
                j--;
            }
            buf[j + 1] = x;
        }
    } else {
        for (int64_t i = 0; i < n; i++) buf[i] = (Keyed){descending_key(scores[i]), i};
        sorted = radix_sort(buf, buf + n, n);
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t at = sorted[i].place;
        score[lo + i] = scores[at];
        doc[lo + i] = docs[at];
    }
}

/* judged_value for few judgments: the position counted without branches. */
static inline int64_t judged_value_short(const int64_t *jdoc, const int64_t *jvalue, int64_t lo, int64_t hi,
                                         int64_t d, int64_t missing) {
    int64_t at = lo;
    for (int64_t j = lo; j < hi; j++) at += jdoc[j] < d;
    return (at < hi && jdoc[at] == d) ? jvalue[at] : missing;
}

#endif

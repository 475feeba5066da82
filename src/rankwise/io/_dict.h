/* What rankwise.io's C sources share (io/_trecscan.c, io/_trecroute.c): buffers, a dictionary of byte strings,
 * the whitespace of the TREC grammar. Static functions: each source has its own copy. */
#ifndef RANKWISE_DICT_H
#define RANKWISE_DICT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

/* Buffers: on Linux mapped directly (zeroed; resized by remapping, never copied), elsewhere malloc'd. grow(NULL, 0,
 * n) allocates, grow(p, old, n) resizes keeping the contents (the new part zeroed), release frees. Transparent huge
 * pages are not asked for: where the kernel compacts memory to find them (defrag=madvise), a fresh process spent
 * more time in those page faults than it saved (measured on the 2-core machine of benchmarks/). */
static inline void *grow(void *p, size_t old, size_t bytes) {
#ifdef __linux__
    void *q = p == NULL ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                        : mremap(p, old, bytes, MREMAP_MAYMOVE);
    return q == MAP_FAILED ? NULL : q;
#else
    char *q = realloc(p, bytes);
    if (q != NULL && bytes > old) memset(q + old, 0, bytes - old);
    return q;
#endif
}

/* A zeroed buffer whose every page is mapped writable now (Linux: MAP_POPULATE), for one read before it is written
 * (a hash table's slots): a fresh mapping's page read first is the shared zero page, and the write after it a
 * copy-on-write fault that flushes the page from every CPU's TLB (an interprocessor interrupt per page in a process
 * with threads on other cores). Elsewhere calloc. */
static inline void *zeroed(size_t bytes) {
#ifdef __linux__
    void *q = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return q == MAP_FAILED ? NULL : q;
#else
    return calloc(1, bytes);
#endif
}

static inline void release(void *p, size_t bytes) {
    if (p == NULL) return;
#ifdef __linux__
    munmap(p, bytes);
#else
    (void)bytes;
    free(p);
#endif
}

typedef struct {
    uint32_t tag;               /* the hash's high half, made odd; 0 = empty */
    int32_t code;
} Slot;

typedef struct {
    char *arena;                /* the distinct ids' bytes, one after another */
    size_t arena_len, arena_cap;
    int64_t *start;             /* per code: where its bytes begin in the arena */
    int32_t *len;               /* per code: how many bytes */
    int64_t count, cap;
    Slot *slots;                /* open addressing, linear probing; the id's bytes are compared only on equal tags */
    uint64_t mask;
} Dict;

static inline uint64_t hash_bytes(const char *s, int32_t n) {
    /* eight bytes at a time (a multiply and a shift per word, the tail read as one word), then murmur3's finaliser
     * to spread the bits: one multiply per eight bytes where FNV-1a takes one per byte */
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uint32_t)n;
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
    }
    if (i < n) {
        uint64_t w = 0;
        for (int32_t k = 0; i + k < n; k++) w |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static inline uint32_t tag_of(uint64_t h) { return (uint32_t)(h >> 32) | 1u; }

static inline void dict_free(Dict *d) {
    release(d->arena, d->arena_cap);
    release(d->start, sizeof(int64_t) * (size_t)d->cap);
    release(d->len, sizeof(int32_t) * (size_t)d->cap);
    if (d->mask) release(d->slots, sizeof(Slot) * (d->mask + 1));
    memset(d, 0, sizeof(Dict));
}

/* Room for at least ``ids`` distinct ids at a load of at most 1/2 (the slots rebuilt, each id hashed again). */
static inline int dict_reserve(Dict *d, int64_t ids) {
    uint64_t size = d->mask ? d->mask + 1 : 1024;
    while ((uint64_t)ids * 2 > size) size *= 2;
    if (d->mask && size == d->mask + 1) return 1;
    Slot *slots = zeroed(size * sizeof(Slot));
    if (slots == NULL) return 0;
    for (int64_t c = 0; c < d->count; c++) {
        uint64_t h = hash_bytes(d->arena + d->start[c], d->len[c]), at = h & (size - 1);
        while (slots[at].tag) at = (at + 1) & (size - 1);
        slots[at].tag = tag_of(h);
        slots[at].code = (int32_t)c;
    }
    if (d->mask) release(d->slots, sizeof(Slot) * (d->mask + 1));
    d->slots = slots;
    d->mask = size - 1;
    return 1;
}

/* Whether a[0..n-1] equals b[0..n-1]: ids are short, so up to 16 bytes compare as two (overlapping) words of 8, or
 * of 4, read in place (no call to memcmp, whose call cost was most of its time here); longer ones by memcmp. */
static inline int same_id(const char *a, const char *b, int32_t n) {
    if (n >= 8 && n <= 16) {
        uint64_t x0, y0, x1, y1;
        memcpy(&x0, a, 8), memcpy(&y0, b, 8), memcpy(&x1, a + n - 8, 8), memcpy(&y1, b + n - 8, 8);
        return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    if (n >= 4 && n < 8) {
        uint32_t x0, y0, x1, y1;
        memcpy(&x0, a, 4), memcpy(&y0, b, 4), memcpy(&x1, a + n - 4, 4), memcpy(&y1, b + n - 4, 4);
        return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    if (n < 4) {
        for (int32_t i = 0; i < n; i++)
            if (a[i] != b[i]) return 0;
        return 1;
    }
    return memcmp(a, b, (size_t)n) == 0;
}

/* The slot holding the id s[0..n-1] of hash h, or the empty slot where it would go. */
static inline Slot *dict_probe(const Dict *d, const char *s, int32_t n, uint64_t h) {
    uint64_t at = h & d->mask;
    uint32_t tag = tag_of(h);
    for (;;) {
        Slot *slot = &d->slots[at];
        if (slot->tag == 0) return slot;
        if (slot->tag == tag) {
            int32_t c = slot->code;
            if (d->len[c] == n && same_id(d->arena + d->start[c], s, n)) return slot;
        }
        at = (at + 1) & d->mask;
    }
}

/* The code of the id s[0..n-1] (hash h), added when new; -1 when memory runs out (or past 2^31 - 1 ids). */
static inline int64_t dict_code(Dict *d, const char *s, int32_t n, uint64_t h) {
    if (d->mask == 0 || (uint64_t)(d->count + 1) * 2 > d->mask + 1) {
        if (!dict_reserve(d, d->count + 1)) return -1;
    }
    Slot *slot = dict_probe(d, s, n, h);
    if (slot->tag) return slot->code;
    if (d->count == INT32_MAX) return -1;
    if (d->count == d->cap) {
        int64_t cap = d->cap ? d->cap * 2 : 1024;
        int64_t *start = grow(d->start, sizeof(int64_t) * (size_t)d->cap, sizeof(int64_t) * (size_t)cap);
        if (start == NULL) return -1;
        d->start = start;
        int32_t *len = grow(d->len, sizeof(int32_t) * (size_t)d->cap, sizeof(int32_t) * (size_t)cap);
        if (len == NULL) return -1;
        d->len = len;
        d->cap = cap;
    }
    if (d->arena_len + (size_t)n > d->arena_cap) {
        size_t cap = d->arena_cap ? d->arena_cap * 2 : 1 << 16;
        while (cap < d->arena_len + (size_t)n) cap *= 2;
        char *arena = grow(d->arena, d->arena_cap, cap);
        if (arena == NULL) return -1;
        d->arena = arena;
        d->arena_cap = cap;
    }
    memcpy(d->arena + d->arena_len, s, (size_t)n);
    int64_t c = d->count++;
    d->start[c] = (int64_t)d->arena_len;
    d->len[c] = n;
    d->arena_len += (size_t)n;
    slot->tag = tag_of(h);
    slot->code = (int32_t)c;
    return c;
}

/* The field separators of the TREC grammar: " \t\r\v\f" (a table: one load per byte, no branch per separator). */
static const unsigned char SPACE[256] = {['\t'] = 1, ['\v'] = 1, ['\f'] = 1, ['\r'] = 1, [' '] = 1};

static inline int is_space(char c) { return SPACE[(unsigned char)c]; }

/* Does data[0..n-1] hold only ASCII bytes and no NUL (eight bytes at a time)? */
static inline int plain_ascii(const char *data, int64_t n) {
    const uint64_t high = 0x8080808080808080ULL, ones = 0x0101010101010101ULL;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, data + i, 8);
        if ((w & high) || ((w - ones) & ~w & high)) return 0;
    }
    for (; i < n; i++)
        if ((unsigned char)data[i] >= 0x80 || data[i] == 0) return 0;
    return 1;
}

#endif

/* Compiled TREC text scanning for rankwise.io.scan: lines split into fields, ids coded, values parsed.
 *
 * A Coder holds two dictionaries (query ids, doc ids), each giving every distinct id a code (query ids in order of
 * first appearance; doc ids in parts by hash, each in order of first appearance), for the one file it scans;
 * Coder.find translates another Coder's codes. Coder.scan fills arrays Python allocated (the buffer protocol, no
 * numpy headers) with the GIL released, on as many threads as it is given. It reads only regular input: a
 * line with the wrong number of fields, a value outside its grammar, a non-finite score or an integer grade that does
 * not fit 64 bits makes it stop and say so (status 1), and the Python readers of rankwise.io.trec, which name the
 * line and the problem, take the file instead; so does data that is not ASCII or holds a NUL byte.
 *
 * The grammar is rankwise.io.trec's: lines end at "\n"; fields are separated by runs of " \t\r\v\f"; blank lines
 * and lines whose first field starts with "#" are skipped; a run line's fields after the sixth are ignored (counted).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include "../engine/_threads.h"
#include <math.h>
#include "_dict.h"

int add_router(PyObject *m); /* io/_trecroute.c */
int add_pairs(PyObject *m);  /* io/_trecpairs.c */

#define MAX_PARTS MAX_THREADS

/* The doc dictionary is split by hash into parts, each filled by its own thread; the code of an id is its part's
 * base plus its code within the part (ids in order of first appearance within each part). */
typedef struct {
    PyObject_HEAD
    Dict queries;
    Dict docs[MAX_PARTS];
    int64_t base[MAX_PARTS + 1]; /* global code of each part's first id; base[parts] = how many doc ids */
    int parts;                   /* 0 until a file is scanned */
} Coder;

static void coder_dealloc(Coder *self) {
    dict_free(&self->queries);
    for (int p = 0; p < MAX_PARTS; p++) dict_free(&self->docs[p]);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static inline int part_of(uint64_t h, int parts) { return (int)((((h >> 20) & 0xffffffffULL) * (uint64_t)parts) >> 32); }


/* [+-]?[0-9]+ fitting int64. */
static int parse_integer(const char *s, int32_t n, int64_t *out) {
    int32_t i = 0;
    int negative = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    if (i == n) return 0;
    uint64_t value = 0, limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        uint64_t digit = (uint64_t)(s[i] - '0');
        if (value > (limit - digit) / 10) return 0;
        value = value * 10 + digit;
    }
    *out = negative ? (int64_t)(0 - value) : (int64_t)value;
    return 1;
}

static const double POWERS[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Clinger's fast path: [+-]?(digits[.digits?]|.digits) with at most 15 significant digits (the digits as one
 * integer m < 10^15) and at most 22 after the point is m / 10^k with m and 10^k exact doubles, so one correctly
 * rounded division gives the correctly rounded value (what strtod gives). 0 where it does not apply (an exponent,
 * more digits, not a number): parse_real decides. */
static int fast_real(const char *s, int32_t n, double *out) {
    int32_t i = 0, negative = 0;
    uint64_t m = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    int32_t first = i;
    while (i < n && (unsigned char)(s[i] - '0') < 10) m = m * 10 + (uint64_t)(s[i++] - '0');
    int32_t digits = i - first, after = 0;
    if (i < n && s[i] == '.') {
        int32_t point = ++i;
        while (i < n && (unsigned char)(s[i] - '0') < 10) m = m * 10 + (uint64_t)(s[i++] - '0');
        after = i - point;
    }
    /* at most 19 digits in all: m has not overflowed */
    if (i != n || digits + after == 0 || digits + after > 19 || after > 22 || m >= 1000000000000000ULL) return 0;
    double value = (double)m / POWERS[after];
    *out = (negative ? -value : value) + 0.0;
    return 1;
}

/* [+-]?(digits[.digits?]|.digits)([eE][+-]?digits)?, finite; -0 becomes 0 (one score, as trec_eval compares). */
static int parse_real(const char *s, int32_t n, double *out) {
    int32_t i = 0, digits = 0;
    char copy[512];
    if (fast_real(s, n, out)) return 1;
    if (n >= (int32_t)sizeof(copy)) return 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++, digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++, digits++;
    }
    if (digits == 0) return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        int32_t exponent_digits = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++, exponent_digits++;
        if (exponent_digits == 0) return 0;
    }
    if (i != n) return 0;
    memcpy(copy, s, (size_t)n);
    copy[n] = '\0';
    double value = strtod(copy, NULL);
    if (!isfinite(value)) return 0;
    *out = value + 0.0;
    return 1;
}

/* Phase 1 keeps each row's query and doc id as (length << 40) | offset in the data: the later phases read the ids
 * without looking for their ends again. A file of 2^40 bytes or more, or an id of 2^23 bytes or more, is left to the
 * Python readers. */
#define OFFSET_BITS 40
#define OFFSET_MASK ((1LL << OFFSET_BITS) - 1)
#define MAX_ID_BYTES (1 << 23)

static inline const char *id_at(const char *data, int64_t packed, int32_t *len) {
    *len = (int32_t)(packed >> OFFSET_BITS);
    return data + (packed & OFFSET_MASK);
}

#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
/* Bits 0..15: which of the 16 bytes at p are field separators (" \t\v\f\r"; '\n' is not: the bytes are ASCII, see
 * plain_ascii, so signed byte comparisons order them). */
static inline uint64_t separators16(const char *p) {
    __m128i v = _mm_loadu_si128((const __m128i *)p);
    __m128i control = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('\t' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('\r' + 1)));
    control = _mm_andnot_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')), control);
    return (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_or_si128(control, _mm_cmpeq_epi8(v, _mm_set1_epi8(' '))));
}
#endif

/* The fields of the line p..eol-1 (eol: its '\n' or the chunk's end): the first six fields' starts and lengths kept,
 * the number of fields returned (counting stops past 4 when fields == 4); -1 for a comment (a first field beginning
 * with '#'). A line shorter than 64 bytes with 64 bytes of the chunk from p is split with bit masks (one bit per
 * byte: a field starts where a separator bit is followed by a text bit); any other line byte by byte. Same fields. */
static inline int split_line(const char *p, const char *eol, const char *end, int fields, const char **start,
                             int32_t *len) {
    int count = 0;
#if defined(__SSE2__) && defined(__GNUC__)
    int64_t n = eol - p;
    if (n < 64 && end - p >= 64) {
        uint64_t separator = separators16(p) | separators16(p + 16) << 16 | separators16(p + 32) << 32 |
                             separators16(p + 48) << 48;
        uint64_t text = ~separator & ((1ULL << n) - 1);
        uint64_t starts = text & ~(text << 1), ends = ~text & (text << 1);
        while (starts) {
            int s = __builtin_ctzll(starts), e = __builtin_ctzll(ends);
            if (count == 0 && p[s] == '#') return -1;
            if (count < 6) {
                start[count] = p + s;
                len[count] = e - s;
            }
            if (++count > fields && fields == 4) break;
            starts &= starts - 1;
            ends &= ends - 1;
        }
        return count;
    }
#endif
    const char *q = p;
    while (q < eol) {
        while (q < eol && is_space(*q)) q++;
        if (q >= eol) break;
        const char *s = q;
        while (q < eol && !is_space(*q)) q++;
        if (count == 0 && *s == '#') return -1;
        if (count < 6) {
            start[count] = s;
            len[count] = (int32_t)(q - s);
        }
        if (++count > fields && fields == 4) break;
    }
    return count;
}

/* Phase 1, one thread per chunk of lines: fields split, values parsed, each row's query id and doc id kept as
 * their offsets in the data (in the query and doc code arrays, coded in phases 2 and 3). */
typedef struct {
    const char *data;
    int64_t begin, end, row0; /* bytes begin..end-1 (whole lines); rows written from row0 */
    int fields, integer_values;
    int64_t *qcode, *dcode, *ivalue;
    double *fvalue;
    uint64_t *dhash; /* per row: its doc id's hash (phase 2 reads it) */
    int64_t rows, lines, extra, first_extra, bad_line;
    int status;
    const char *tag;
    int32_t tag_len;
} ChunkTask;


static void *scan_chunk(void *arg) {
    ChunkTask *t = arg;
    const char *p = t->data + t->begin, *end = t->data + t->end;
    int64_t line = 0, at = t->fields == 4 ? 3 : 4; /* lines numbered within the chunk: the chunks' line counts
                                                     * (count_lines) make them whole after */
    if (!plain_ascii(p, end - p)) { /* a NUL or a byte that is not ASCII: the Python readers decide */
        t->status = 1;
        t->bad_line = line + 1;
        return NULL;
    }
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL) eol = end;
        line++;
        const char *start[6];
        int32_t len[6];
        int count = split_line(p, eol, end, t->fields, start, len);
        p = eol + 1;
        if (count <= 0) continue; /* a comment or an empty line */
        int64_t row = t->row0 + t->rows;
        if (count < t->fields || (t->fields == 4 && count > 4) || len[0] >= MAX_ID_BYTES || len[2] >= MAX_ID_BYTES ||
            (start[2] - t->data) > OFFSET_MASK ||
            (t->integer_values ? !parse_integer(start[at], len[at], &t->ivalue[row])
                               : !parse_real(start[at], len[at], &t->fvalue[row]))) {
            t->status = 1;
            t->bad_line = line;
            return NULL;
        }
        if (count > t->fields && t->extra++ == 0) t->first_extra = line;
        if (t->rows == 0 && t->fields == 6) {
            t->tag = start[5];
            t->tag_len = len[5];
        }
        t->qcode[row] = (start[0] - t->data) | ((int64_t)len[0] << OFFSET_BITS);
        t->dcode[row] = (start[2] - t->data) | ((int64_t)len[2] << OFFSET_BITS);
        t->dhash[row] = hash_bytes(start[2], len[2]);
        t->rows++;
    }
    return NULL;
}

/* Before phase 1, one thread per chunk: its newlines counted (its room for rows). */
static void *count_lines(void *arg) {
    ChunkTask *t = arg;
    const char *q = t->data + t->begin, *end = t->data + t->end;
    int64_t lines = 0;
    for (; (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++) lines++;
    t->lines = lines;
    return NULL;
}

/* Phase 2, one thread per part of the doc dictionary: the rows whose doc id (hashed in phase 1) falls in this part
 * coded (a batch of slots fetched ahead of use: most ids of a run are new, and each lookup is a cache miss); each
 * such row's doc offset replaced by (part << 40) | its code within the part. A thread reads and writes only the
 * offsets of its own rows. */
typedef struct {
    Coder *coder;
    const char *data, *end;
    int64_t *offset;
    const uint64_t *hash;
    int64_t rows;
    int part, memory;
} PartTask;

static void *code_part(void *arg) {
    PartTask *t = arg;
    Dict *d = &t->coder->docs[t->part];
    enum { BATCH = 32 };
    const char *s[BATCH];
    int32_t n[BATCH];
    uint64_t h[BATCH];
    int64_t row[BATCH];
    for (int64_t i = 0; i < t->rows;) {
        int batch = 0;
        for (; i < t->rows && batch < BATCH; i++) {
            uint64_t hash = t->hash[i];
            if (part_of(hash, t->coder->parts) != t->part) continue;
            int32_t len;
            const char *id = id_at(t->data, t->offset[i], &len);
            s[batch] = id;
            n[batch] = len;
            h[batch] = hash;
            row[batch] = i;
            __builtin_prefetch(&d->slots[hash & d->mask]);
            batch++;
        }
        for (int k = 0; k < batch; k++) {
            int64_t code = dict_code(d, s[k], n[k], h[k]);
            if (code < 0) {
                t->memory = 1;
                return NULL;
            }
            t->offset[row[k]] = ((int64_t)t->part << 40) | code;
        }
    }
    return NULL;
}


#define BYTES_PER_THREAD (1 << 21) /* a thread per this many bytes at most (a smaller file: one thread) */

/* Coder.scan(data, fields, integer_values, query_code, doc_code, value, threads, bytes_per_thread=2 MiB) ->
 *     (rows, status, line, extra_lines, first_extra_line, tag)
 *
 * fields: 4 (qrels: query_id iteration doc_id grade) or 6 (run: query_id iteration doc_id rank score tag).
 * Writes per data line its query code, doc code and value (int64 grade when integer_values, else float64); the
 * arrays must hold len(data) / (2 * fields - 1) + 64 items. status 0: every line read; 1: the line numbered ``line`` is not
 * regular (the Python readers take the file); 2: no data line. extra_lines: run lines with fields after the tag,
 * the first at first_extra_line. tag: the first data line's tag (run), else None. A Coder scans one file; the work
 * is split over ``threads`` threads (by lines, then by part of the doc dictionary; at most one per bytes_per_thread
 * bytes: the tests make chunks of a few bytes), the result the same but for the order of the doc codes. */
static PyObject *coder_scan(Coder *self, PyObject *args) {
    Py_buffer data_v, qcode_v, dcode_v, value_v;
    int fields, integer_values, requested;
    Py_ssize_t per_thread = BYTES_PER_THREAD;
    if (!PyArg_ParseTuple(args, "y*ipw*w*w*i|n", &data_v, &fields, &integer_values, &qcode_v, &dcode_v, &value_v,
                          &requested, &per_thread))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t capacity = qcode_v.len / 8;
    ChunkTask *chunks = NULL;
    PartTask *parts = NULL;
    uint64_t *dhash = NULL;
    size_t dhash_bytes = 0;
    if (fields != 4 && fields != 6) {
        PyErr_SetString(PyExc_ValueError, "fields must be 4 or 6");
        goto done;
    }
    if (self->parts != 0) {
        PyErr_SetString(PyExc_ValueError, "a Coder scans one file");
        goto done;
    }
    if (dcode_v.len / 8 < capacity || value_v.len / 8 < capacity) {
        PyErr_SetString(PyExc_ValueError, "output arrays of different sizes");
        goto done;
    }
    const char *data = data_v.buf;
    int64_t size = data_v.len;
    int threads = requested < 1 ? 1 : (requested > MAX_PARTS ? MAX_PARTS : requested);
    if (per_thread < 1) per_thread = 1;
    if (size / per_thread + 1 < threads) threads = (int)(size / per_thread + 1);
    self->parts = threads;
    chunks = calloc((size_t)threads, sizeof(ChunkTask));
    parts = calloc((size_t)threads, sizeof(PartTask));
    dhash_bytes = sizeof(uint64_t) * (size_t)(capacity > 0 ? capacity : 1);
    dhash = grow(NULL, 0, dhash_bytes); /* pages past the rows written are never touched */
    if (chunks == NULL || parts == NULL || dhash == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t rows = 0, extra = 0, first_extra = 0, bad_line = 0;
    const char *tag = NULL;
    int32_t tag_len = 0;
    int status = 0, memory = 0;
    Py_BEGIN_ALLOW_THREADS
    /* Chunks of whole lines, their lines counted on every core, each with room for one row per line (so the rows
     * of one chunk start where the previous chunk's could end: few pages touched past the rows kept). */
    int64_t begin = 0, row0 = 0;
    for (int t = 0; t < threads; t++) {
        int64_t end = t + 1 == threads ? size : size / threads * (t + 1);
        if (end < begin) end = begin;
        if (end < size) {
            const char *eol = memchr(data + end, '\n', (size_t)(size - end));
            end = eol == NULL ? size : eol - data + 1;
        }
        chunks[t] = (ChunkTask){data, begin, end, 0, fields, integer_values, qcode_v.buf, dcode_v.buf,
                                value_v.buf, value_v.buf, dhash, 0, 0, 0, 0, 0, 0, NULL, 0};
        begin = end;
    }
    run_all(count_lines, chunks, sizeof(ChunkTask), threads);
    for (int t = 0; t < threads; t++) {
        chunks[t].row0 = row0;
        /* at most one row per line, and a data line takes at least 2 * fields - 1 bytes */
        int64_t most = (chunks[t].end - chunks[t].begin) / (2 * fields - 1) + 1;
        row0 += chunks[t].lines + 1 < most ? chunks[t].lines + 1 : most;
    }
    if (row0 > capacity) {
        PyErr_SetString(PyExc_ValueError, "output arrays too small (one item per 2 * fields - 1 bytes, + 64)");
        memory = -1;
    } else {
        run_all(scan_chunk, chunks, sizeof(ChunkTask), threads);
    }
    int64_t before = 0; /* the lines of the chunks before */
    for (int t = 0; t < threads && status == 0; before += chunks[t++].lines) {
        ChunkTask *c = &chunks[t];
        if (c->status) {
            status = 1;
            bad_line = before + c->bad_line;
            break;
        }
        if (c->extra && extra == 0) first_extra = before + c->first_extra;
        extra += c->extra;
        if (tag == NULL && c->rows) {
            tag = c->tag;
            tag_len = c->tag_len;
        }
        if (c->row0 != rows) { /* close the gaps between chunks */
            memmove((char *)qcode_v.buf + 8 * rows, (char *)qcode_v.buf + 8 * c->row0, (size_t)(8 * c->rows));
            memmove((char *)dcode_v.buf + 8 * rows, (char *)dcode_v.buf + 8 * c->row0, (size_t)(8 * c->rows));
            memmove((char *)value_v.buf + 8 * rows, (char *)value_v.buf + 8 * c->row0, (size_t)(8 * c->rows));
            memmove(dhash + rows, dhash + c->row0, (size_t)(8 * c->rows));
        }
        rows += c->rows;
    }
    if (status == 0 && rows > 0) {
        for (int t = 0; t < threads; t++)
            if (!dict_reserve(&self->docs[t], rows / threads + 16)) memory = 1; /* parts by hash: about equal */
        if (!memory) {
            for (int t = 0; t < threads; t++)
                parts[t] = (PartTask){self, data, data + size, dcode_v.buf, dhash, rows, t, 0};
            run_all(code_part, parts, sizeof(PartTask), threads);
            for (int t = 0; t < threads; t++) memory |= parts[t].memory;
        }
        if (!memory) {
            int64_t *dcode = dcode_v.buf, *qcode = qcode_v.buf;
            self->base[0] = 0;
            for (int t = 0; t < threads; t++) self->base[t + 1] = self->base[t] + self->docs[t].count;
            for (int64_t i = 0; i < rows; i++) dcode[i] = self->base[dcode[i] >> 40] + (dcode[i] & ((1LL << 40) - 1));
            const char *last = NULL;
            int32_t last_len = 0;
            int64_t last_code = -1;
            for (int64_t i = 0; i < rows && !memory; i++) { /* queries: runs are written query by query */
                int32_t len;
                const char *id = id_at(data, qcode[i], &len);
                if (last_code < 0 || len != last_len || !same_id(id, last, len)) {
                    last_code = dict_code(&self->queries, id, len, hash_bytes(id, len));
                    if (last_code < 0) memory = 1;
                }
                last = id;
                last_len = len;
                qcode[i] = last_code;
            }
        }
    }
    Py_END_ALLOW_THREADS
    if (memory) {
        if (memory > 0) PyErr_NoMemory();
        goto done;
    }
    if (status == 0 && rows == 0) status = 2;
    PyObject *tag_text = tag == NULL ? Py_NewRef(Py_None) : PyUnicode_DecodeASCII(tag, tag_len, "strict");
    if (tag_text == NULL) goto done;
    result = Py_BuildValue("nnnnnN", (Py_ssize_t)rows, (Py_ssize_t)status, (Py_ssize_t)bad_line, (Py_ssize_t)extra,
                           (Py_ssize_t)first_extra, tag_text);
done:
    free(chunks);
    free(parts);
    release(dhash, dhash_bytes);
    PyBuffer_Release(&data_v);
    PyBuffer_Release(&qcode_v);
    PyBuffer_Release(&dcode_v);
    PyBuffer_Release(&value_v);
    return result;
}

/* The dictionary and code within it of a query code or a doc code. */
static const Dict *locate(const Coder *self, int docs, int64_t code, int64_t *local) {
    *local = code;
    if (!docs) return &self->queries;
    int p = 0;
    while (p + 1 < self->parts && self->base[p + 1] <= code) p++;
    *local = code - self->base[p];
    return &self->docs[p];
}

static int64_t count_of(const Coder *self, int docs) {
    return docs ? (self->parts ? self->base[self->parts] : 0) : self->queries.count;
}

static int which(const char *name) {
    if (strcmp(name, "query") == 0) return 0;
    if (strcmp(name, "doc") == 0) return 1;
    PyErr_SetString(PyExc_ValueError, "which must be 'query' or 'doc'");
    return -1;
}

/* Coder.ids(which, codes=None) -> list[str]: the ids of the codes given (int64 buffer), or of every code in order. */
static PyObject *coder_ids(Coder *self, PyObject *args) {
    const char *name;
    PyObject *codes_obj = Py_None;
    if (!PyArg_ParseTuple(args, "s|O", &name, &codes_obj)) return NULL;
    int docs = which(name);
    if (docs < 0) return NULL;
    Py_buffer codes_v;
    int have_codes = codes_obj != Py_None;
    if (have_codes && PyObject_GetBuffer(codes_obj, &codes_v, PyBUF_SIMPLE) < 0) return NULL;
    int64_t total = count_of(self, docs);
    Py_ssize_t n = have_codes ? codes_v.len / 8 : (Py_ssize_t)total;
    const int64_t *codes = have_codes ? codes_v.buf : NULL;
    PyObject *out = PyList_New(n);
    if (out == NULL) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t c = have_codes ? codes[i] : (int64_t)i, at;
        if (c < 0 || c >= total) {
            PyErr_Format(PyExc_ValueError, "code %lld is outside 0..%lld", (long long)c, (long long)total - 1);
            Py_CLEAR(out);
            goto done;
        }
        const Dict *d = locate(self, docs, c, &at);
        PyObject *text = PyUnicode_DecodeASCII(d->arena + d->start[at], d->len[at], "strict");
        if (text == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, text);
    }
done:
    if (have_codes) PyBuffer_Release(&codes_v);
    return out;
}

/* order(which, codes, out): out[k] = the position in ``codes`` of the k-th id in the byte order of the ids' text
 * (equal ids in the order of their positions), as Python's sorted() orders ASCII str: no str is made. */
typedef struct {
    uint64_t prefix; /* the first 8 bytes, big-endian, zero-padded: compared as one number (ids hold no NUL) */
    const char *text;
    int64_t len, at;
} TextKey;

static int compare_text(const void *a, const void *b) {
    const TextKey *x = a, *y = b;
    if (x->prefix != y->prefix) return x->prefix < y->prefix ? -1 : 1;
    if (x->len > 8 && y->len > 8) {
        int c = memcmp(x->text + 8, y->text + 8, (size_t)(x->len < y->len ? x->len : y->len) - 8);
        if (c != 0) return c;
    }
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

static uint64_t text_prefix(const char *text, int64_t len) {
    uint64_t prefix = 0;
    for (int i = 0; i < 8; i++) prefix = prefix << 8 | (i < len ? (uint8_t)text[i] : 0);
    return prefix;
}

static PyObject *coder_order(Coder *self, PyObject *args) {
    const char *name;
    Py_buffer codes_v, out_v;
    if (!PyArg_ParseTuple(args, "sy*w*", &name, &codes_v, &out_v)) return NULL;
    PyObject *result = NULL;
    int docs = which(name);
    Py_ssize_t n = codes_v.len / 8;
    TextKey *keys = NULL;
    if (docs < 0) goto done;
    if (out_v.len != codes_v.len) {
        PyErr_SetString(PyExc_ValueError, "out must hold one position per code");
        goto done;
    }
    keys = malloc(sizeof(TextKey) * (size_t)(n ? n : 1));
    if (keys == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const int64_t *codes = codes_v.buf;
    int64_t total = count_of(self, docs), *out = out_v.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t at;
        if (codes[i] < 0 || codes[i] >= total) {
            PyErr_Format(PyExc_ValueError, "code %lld is outside 0..%lld", (long long)codes[i], (long long)total - 1);
            goto done;
        }
        const Dict *d = locate(self, docs, codes[i], &at);
        const char *text = d->arena + d->start[at];
        keys[i] = (TextKey){text_prefix(text, d->len[at]), text, d->len[at], i};
    }
    Py_BEGIN_ALLOW_THREADS
    qsort(keys, (size_t)n, sizeof(TextKey), compare_text);
    for (Py_ssize_t i = 0; i < n; i++) out[i] = keys[i].at;
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    free(keys);
    PyBuffer_Release(&codes_v);
    PyBuffer_Release(&out_v);
    return result;
}

static PyTypeObject CoderType;


typedef struct {
    const Coder *self, *other;
    int docs;
    int64_t first, last, *out; /* other's codes first..last-1 */
} FindTask;

/* Each id of other's codes first..last-1 looked up here, in batches whose slots are fetched ahead of use. */
static void *find_codes(void *arg) {
    FindTask *t = arg;
    enum { BATCH = 16 };
    const char *s[BATCH];
    int32_t n[BATCH];
    uint64_t h[BATCH];
    for (int64_t c = t->first; c < t->last; c += BATCH) {
        int batch = t->last - c < BATCH ? (int)(t->last - c) : BATCH;
        for (int k = 0; k < batch; k++) {
            int64_t at;
            const Dict *d = locate(t->other, t->docs, c + k, &at);
            s[k] = d->arena + d->start[at];
            n[k] = d->len[at];
            h[k] = hash_bytes(s[k], n[k]);
            const Dict *mine = t->docs ? &t->self->docs[part_of(h[k], t->self->parts)] : &t->self->queries;
            if (mine->mask) __builtin_prefetch(&mine->slots[h[k] & mine->mask]);
        }
        for (int k = 0; k < batch; k++) {
            int p = t->docs ? part_of(h[k], t->self->parts) : 0;
            const Dict *mine = t->docs ? &t->self->docs[p] : &t->self->queries;
            Slot *slot = mine->mask ? dict_probe(mine, s[k], n[k], h[k]) : NULL;
            t->out[c + k] = slot != NULL && slot->tag ? (t->docs ? t->self->base[p] : 0) + slot->code : -1;
        }
    }
    return NULL;
}

/* Coder.find(which, other, out, threads=1): for each id of other's dictionary, its code in this one or -1 (int64
 * out), the ids split over threads. */
static PyObject *coder_find(Coder *self, PyObject *args) {
    const char *name;
    PyObject *other_obj;
    Py_buffer out_v;
    int requested = 1;
    if (!PyArg_ParseTuple(args, "sO!w*|i", &name, &CoderType, &other_obj, &out_v, &requested)) return NULL;
    PyObject *result = NULL;
    Coder *other = (Coder *)other_obj;
    int docs = which(name);
    if (docs < 0) goto done;
    int64_t total = count_of(other, docs);
    if (out_v.len != 8 * total) {
        PyErr_SetString(PyExc_ValueError, "out must hold one int64 per id of other");
        goto done;
    }
    int memory = 0; /* an index dropped (Coder.drop_index) is built again from the ids */
    for (int p = 0; p < (docs ? self->parts : 1); p++) {
        Dict *d = docs ? &self->docs[p] : &self->queries;
        if (d->mask == 0 && d->count > 0 && !dict_reserve(d, d->count)) memory = 1;
    }
    if (memory) {
        PyErr_NoMemory();
        goto done;
    }
    if (docs && self->parts == 0) {
        for (int64_t c = 0; c < total; c++) ((int64_t *)out_v.buf)[c] = -1;
    } else {
        int threads = requested < 1 ? 1 : (requested > MAX_THREADS ? MAX_THREADS : requested);
        if (total / 65536 + 1 < threads) threads = (int)(total / 65536 + 1);
        FindTask tasks[MAX_THREADS];
        for (int t = 0; t < threads; t++)
            tasks[t] = (FindTask){self, other, docs, total / threads * t, t + 1 == threads ? total : total / threads * (t + 1),
                                  out_v.buf};
        Py_BEGIN_ALLOW_THREADS
        run_all(find_codes, tasks, sizeof(FindTask), threads);
        Py_END_ALLOW_THREADS
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&out_v);
    return result;
}

/* Coder.drop_index(): free the hash tables (the ids and their codes stay; find builds a table again when it needs
 * one). Once a file's ids are coded and looked up, its tables are memory no one reads. */
static PyObject *coder_drop_index(Coder *self, PyObject *unused) {
    for (int p = 0; p <= MAX_PARTS; p++) {
        Dict *d = p == MAX_PARTS ? &self->queries : &self->docs[p];
        if (d->mask) release(d->slots, sizeof(Slot) * (d->mask + 1));
        d->slots = NULL;
        d->mask = 0;
    }
    return Py_NewRef(Py_None);
}

/* Coder.size(which) -> int: how many distinct ids. */
static PyObject *coder_size(Coder *self, PyObject *args) {
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
    int docs = which(name);
    return docs < 0 ? NULL : PyLong_FromLongLong((long long)count_of(self, docs));
}

static PyMethodDef coder_methods[] = {
    {"scan", (PyCFunction)coder_scan, METH_VARARGS, "Scan TREC text into codes and values (see the C source)."},
    {"ids", (PyCFunction)coder_ids, METH_VARARGS, "The ids of codes: ids('query'|'doc', codes=None)."},
    {"order", (PyCFunction)coder_order, METH_VARARGS, "Positions of codes in their ids' text order: order(which, codes, out)."},
    {"find", (PyCFunction)coder_find, METH_VARARGS, "Codes here of another coder's ids: find(which, other, out)."},
    {"size", (PyCFunction)coder_size, METH_VARARGS, "How many distinct ids: size('query'|'doc')."},
    {"drop_index", (PyCFunction)coder_drop_index, METH_NOARGS, "Free the hash tables (find builds them again)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "rankwise.io._trecscan.Coder",
    .tp_basicsize = sizeof(Coder),
    .tp_dealloc = (destructor)coder_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Codes for the query ids and doc ids of the files it scans (equal ids, equal codes).",
    .tp_methods = coder_methods,
    .tp_new = PyType_GenericNew,
};

static PyMethodDef methods[] = {
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_trecscan", "Compiled TREC text scanning.", -1, methods};

PyMODINIT_FUNC PyInit__trecscan(void) {
    if (PyType_Ready(&CoderType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&CoderType);
    if (PyModule_AddObject(m, "Coder", (PyObject *)&CoderType) < 0) {
        Py_DECREF(&CoderType);
        Py_DECREF(m);
        return NULL;
    }
    if (add_router(m) < 0 || add_pairs(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

/* The C machine of unspool's JsonStream: the same contract as the pure-Python
 * machine in jsonstream.py, which stays the reference (differential tests hold
 * the two together).  It runs strict JSON and lenient mode (no preamble; no token
 * limit with lenient kinds), with or without path events and release_items, every
 * other limit, str or UTF-8 bytes input.  Lenient mode reads valid JSON, the lenient
 * decisions and the commonest repairs here and hands any other repair over to the
 * Python machine, which gives the stream back after it (see "lenient mode" below).
 *
 * The type is made at run time by make_type(JsonStream, helpers), helpers being a
 * state.Helpers record read by attribute name: it subclasses
 * the Python JsonStream (so isinstance() holds) and keeps its own state after the
 * base's slots.  The machine reads each chunk once; only undecided text (an
 * escape or a literal cut by the chunk boundary) is carried to the next chunk.
 * An in-flight string is one str object that grows in place (its slot in the
 * live value is released while it grows, so PyUnicode_Resize can extend it
 * without copying) and is put back once per feed.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>

/* ------------------------------------------------------------------ helpers from Python */

static PyObject *H_UNSET, *H_parse_error, *H_deep_copy, *H_big_int;
static PyObject *H_MalformedJSON, *H_LimitExceeded;
static PyObject *H_ValueStart, *H_StringDelta, *H_ValueEnd, *H_Skipped;
static PyObject *H_path_link;     /* path_events._Link: a path deeper than path_flat keys */
/* the events of a linked path: private subclasses reading it as a tuple (path_events._Deep) */
static PyObject *H_DeepValueStart, *H_DeepStringDelta, *H_DeepValueEnd;
static Py_ssize_t path_flat = 32; /* path_events.PATH_FLAT */
static PyObject *K_object, *K_array, *K_string, *K_number, *K_bool, *K_null, *K_trailing;
static PyObject *S_empty, *T_empty, *S_line_end, *S_block_end;
/* lenient mode: the reference's own decisions, and the hand-over to its machine */
static PyObject *H_resume, *H_kinds_of, *H_close_verdict, *H_string_cut, *H_string_fast, *H_token,
    *H_glued_quote, *H_repair, *H_repair_window;
static PyObject *H_Handover, *H_Giveback; /* state.Handover and state.Giveback */
static PyObject *A_root, *A_complete, *A_send, *K_string_word, *K_key_word;
static PyObject *R_trailing_comma, *M_trailing_comma, *R_missing_comma, *M_missing_comma, *R_unquoted_key,
    *M_unquoted_key, *R_comment, *M_comment, *M_hash_comment, *R_single, *M_single_string, *M_single_key,
    *R_control, *M_control;
static PyObject *stream_type;
static Py_ssize_t state_offset;
#define MAX_BASE_SLOTS 64
static Py_ssize_t base_slots[MAX_BASE_SLOTS];
static int n_base_slots;
static Py_ssize_t off_root = -1, off_complete = -1; /* the base's _root and _complete slots */

/* ------------------------------------------------------------------ the hand-over records */

/* The state that crosses between the machines, named once in unspool/core/_state.py
 * (Handover: C -> Python, Giveback: Python -> C).  The same field lists here, in the
 * same order, are exposed as HANDOVER_FIELDS and GIVEBACK_FIELDS; make_type() checks
 * them against the records' _fields, and the machine fills and reads the records by
 * these names (HO_stack, GB_state, ...).  The names are those of the Machine members
 * the fields come from (state.py says which are derived). */
#define HANDOVER_FIELDS(X)                                                                                   \
    X(stack) X(cpaths) X(key) X(state) X(glue) X(rlist) X(shift) X(is_key) X(sbuf) X(s_path) X(d_start)     \
    X(s_pos) X(nbuf) X(n_pos) X(ubuf) X(u_pos) X(base) X(eof) X(s) X(i) X(give_back) X(quote) X(c_end)      \
    X(c_ret) X(c_closer) X(c_tail) X(ctrl_seen)
#define GIVEBACK_FIELDS(X) X(stack) X(cpaths) X(key) X(state) X(glue) X(rlist) X(shift) X(s) X(i)
#define FIELD_INDEX_HO(name) HO_##name,
#define FIELD_INDEX_GB(name) GB_##name,
#define FIELD_NAME(name) #name,
enum { HANDOVER_FIELDS(FIELD_INDEX_HO) HO_COUNT };
enum { GIVEBACK_FIELDS(FIELD_INDEX_GB) GB_COUNT };
static const char *const handover_fields[HO_COUNT] = {HANDOVER_FIELDS(FIELD_NAME)};
static const char *const giveback_fields[GB_COUNT] = {GIVEBACK_FIELDS(FIELD_NAME)};

/* ------------------------------------------------------------------ state */

enum {
    ST_VALUE = 0,
    ST_ELEM_FIRST = 1,
    ST_ELEM = 2,
    ST_KEY_FIRST = 3,
    ST_KEY = 4,
    ST_COLON = 5,
    ST_AFTER = 6,
    ST_STRING = 8,
    ST_NUMBER = 9,
    ST_END = 13,
    ST_UKEY = 10,  /* an unquoted key (lenient) */
    ST_COMMENT = 11, /* inside a comment (lenient) */
    ST_PREAMBLE = 12, /* before the root value (skip_preamble, lenient): the Python machine's */
    ST_UVAL = 14,  /* an unquoted value token (lenient) */
    ST_PY = 99     /* handed over: the Python machine runs the stream */
};

/* the verdicts of the lenient decisions (quotes.py, decisions.py) */
enum { V_INNER = 0, V_CLOSE = 1, V_UNDECIDED = -1, V_ASK = -9 /* ask the Python helper */ };

#define EV_POOL 64          /* recycled events kept per type */
#define SPARE_MAX_ITEMS 256 /* a handed-over list is reused when it has room for at most this many */

/* number DFA: the longest prefix that can still grow into a JSON number */
enum { N_START, N_MINUS, N_ZERO, N_INT, N_DOT, N_FRAC, N_EXP, N_ESIGN, N_EDIG, N_STUCK };

typedef struct {
    PyObject *cont; /* a dict or list, owned */
    PyObject *path; /* its path (events only), owned */
    int is_dict;
} Frame;

typedef struct {
    int ready, dead;
    int busy; /* the machine runs (a parse hook, a finalizer may call back into the parser) */
    int glue; /* a root number or literal just ended: a letter right after it is an error */
    int events_on, ignore_trailing, allow_nan;
    int release; /* release_items: the root array's ended items leave the live value */
    int r_on;    /* ... and the root is that array (m->root) */
    Py_ssize_t shift; /* how many of its items were released (paths keep absolute indices) */
    int finished, complete, mode; /* mode: 0 none yet, 1 str, 2 bytes */
    int state;
    Py_ssize_t max_depth, max_tok, max_doc, max_int; /* -1: no limit */
    PyObject *parse_float, *parse_int;               /* NULL: float / int */
    PyObject *root, *events, *tail, *repairs, *error, *key, *carry;
    /* Event recycling (see recycle()): the list the last take() handed over, an empty
     * list to collect the next events in, and events of the 2-item types whose last
     * reference came back to us, emptied, by type (ValueStart, StringDelta, ValueEnd). */
    PyObject *given, *spare;
    PyObject *pool[3][EV_POOL];
    int npool[3];
    Py_ssize_t pos;  /* characters sent to the machine */
    Py_ssize_t base; /* stream offset of the current chunk's first character */
    Frame *stack;
    Py_ssize_t depth, cap;
    /* the in-flight string */
    int is_key, s_attached, s_first;
    PyObject *sbuf; /* decoded text so far (NULL: none) */
    Py_UCS4 smax;   /* its largest character */
    PyObject *s_path;
    Py_ssize_t d_start, s_pos;
    Py_UCS4 *scr; /* decoded text of the current chunk once an escape was met */
    Py_ssize_t scr_len, scr_cap;
    Py_UCS4 scr_max;
    /* the in-flight number */
    char *nbuf;
    Py_ssize_t nlen, ncap, n_pos;
    int ndfa;
    /* lenient mode (the kinds the machine itself reads; every other case is handed over) */
    int lenient, k_mquote, k_inner, k_token, k_space;
    int k_trailing_comma, k_missing_comma, k_unquoted_key, k_closer, k_comment, k_single, k_ctrl;
    int ctrl_seen; /* the in-flight string reported its raw control character (control_char) */
    Py_UCS4 quote; /* the in-flight string's quote: '"', or '\'' (single_quotes) */
    /* the comment the stream is in: its end ("\n" or "*\/"), the state after it, whether a
       line comment in a container ran over a closer and the next member, its last text */
    int c_block, c_ret, c_closer;
    PyObject *c_tail;
    int py;               /* handed over: chunks go to the Python machine's send */
    Py_ssize_t handovers; /* how many times */
    Py_ssize_t back_pos;  /* stream offset where the C machine last took the stream back */
    Py_ssize_t delay;     /* how far past a hand-over the Python machine keeps the stream */
    PyObject *options;    /* the keyword options (the Python machine is made with them) */
    PyObject *token_opts; /* decisions._token's opts */
    PyObject *send;       /* the Python machine's send, once handed over */
    PyObject *ubuf;       /* the in-flight unquoted token (NULL: none) */
    Py_ssize_t u_pos;
    /* UTF-8 input */
    unsigned char ub[8];
    Py_ssize_t ulen;
    int bom_first;
} Machine;

#define MS(self) ((Machine *)((char *)(self) + state_offset))

/* ------------------------------------------------------------------ small utilities */

static int
is_ws(Py_UCS4 c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int
is_numchar(Py_UCS4 c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

static int
hexval(Py_UCS4 c)
{
    if (c >= '0' && c <= '9') return (int)(c - '0');
    if (c >= 'a' && c <= 'f') return (int)(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') return (int)(c - 'A' + 10);
    return -1;
}

static int
ndfa_step(int st, Py_UCS4 c)
{
    int digit = c >= '0' && c <= '9';
    switch (st) {
    case N_START:
        if (c == '-') return N_MINUS;
        /* fall through */
    case N_MINUS:
        if (c == '0') return N_ZERO;
        if (digit) return N_INT;
        return N_STUCK;
    case N_ZERO:
        if (c == '.') return N_DOT;
        if (c == 'e' || c == 'E') return N_EXP;
        return N_STUCK;
    case N_INT:
        if (digit) return N_INT;
        if (c == '.') return N_DOT;
        if (c == 'e' || c == 'E') return N_EXP;
        return N_STUCK;
    case N_DOT:
        return digit ? N_FRAC : N_STUCK;
    case N_FRAC:
        if (digit) return N_FRAC;
        if (c == 'e' || c == 'E') return N_EXP;
        return N_STUCK;
    case N_EXP:
        if (c == '+' || c == '-') return N_ESIGN;
        return digit ? N_EDIG : N_STUCK;
    case N_ESIGN:
    case N_EDIG:
        return digit ? N_EDIG : N_STUCK;
    }
    return N_STUCK;
}

static int
ndfa_accepts(int st)
{
    return st == N_ZERO || st == N_INT || st == N_FRAC || st == N_EDIG;
}

/* Raise the parser error for msg at pos (LimitExceeded when limit). */
static int
raise_at(PyObject *msg, Py_ssize_t pos, int limit)
{
    if (msg == NULL) return -1;
    PyObject *exc = PyObject_CallFunction(H_parse_error, "Oni", msg, pos, limit);
    Py_DECREF(msg);
    if (exc == NULL) return -1;
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return -1;
}

static int
fail_msg(const char *msg, Py_ssize_t pos)
{
    return raise_at(PyUnicode_FromString(msg), pos, 0);
}

static PyObject *
tuple_plus(PyObject *t, PyObject *item)
{
    Py_ssize_t n = PyTuple_GET_SIZE(t);
    PyObject *r = PyTuple_New(n + 1);
    if (r == NULL) return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *x = PyTuple_GET_ITEM(t, k);
        Py_INCREF(x);
        PyTuple_SET_ITEM(r, k, x);
    }
    Py_INCREF(item);
    PyTuple_SET_ITEM(r, n, item);
    PyObject_GC_UnTrack(r); /* keys and indices only: no cycle possible */
    return r;
}

/* The path of item under parent, as path_events.child_path makes it: a tuple up to
 * path_flat keys, deeper a link (parent, item) to the parent's path, so a path costs
 * O(1) however deep the document nests (it is built as a tuple when it is read). */
static PyObject *
path_child(PyObject *parent, PyObject *item)
{
    if (PyTuple_CheckExact(parent) && PyTuple_GET_SIZE(parent) < path_flat) return tuple_plus(parent, item);
    PyTypeObject *tp = (PyTypeObject *)H_path_link;
    PyObject *r = tp->tp_alloc(tp, 2);
    if (r == NULL) return NULL;
    Py_INCREF(parent);
    PyTuple_SET_ITEM(r, 0, parent);
    Py_INCREF(item);
    PyTuple_SET_ITEM(r, 1, item);
    PyObject_GC_UnTrack(r); /* links, keys and indices only: no cycle possible */
    return r;
}

/* Whether the event types are plain tuple subclasses (no __dict__, no __weakref__,
 * no extra fields), so that emit() may allocate them without the generic allocator's
 * zeroing and tracking; see make_type(). */
static int events_plain;

static int
plain_tuple_type(PyObject *type)
{
    PyTypeObject *tp = (PyTypeObject *)type;
    return PyType_Check(type) && PyType_IsSubtype(tp, &PyTuple_Type) &&
           tp->tp_basicsize == PyTuple_Type.tp_basicsize && tp->tp_itemsize == PyTuple_Type.tp_itemsize &&
           tp->tp_dictoffset == 0 && tp->tp_weaklistoffset == 0 &&
           !PyType_HasFeature(tp, Py_TPFLAGS_MANAGED_DICT) && tp->tp_alloc == PyType_GenericAlloc &&
           PyType_HasFeature(tp, Py_TPFLAGS_HAVE_GC);
}

/* The recycling pool of an event type: 0, 1, 2, or -1 for a type not recycled. */
static int
pool_of(PyObject *type)
{
    return type == H_ValueStart ? 0 : type == H_StringDelta ? 1 : type == H_ValueEnd ? 2 : -1;
}

/* Append a path event (a NamedTuple of 2 or 3 items) to the events list. */
static int
emit(Machine *m, PyObject *type, PyObject *a, PyObject *b, PyObject *c)
{
    if (Py_IS_TYPE(a, (PyTypeObject *)H_path_link)) /* a linked path: its event's deep type */
        type = type == H_ValueStart    ? H_DeepValueStart
               : type == H_StringDelta ? H_DeepStringDelta
               : type == H_ValueEnd    ? H_DeepValueEnd
                                       : type;
    Py_ssize_t size = c == NULL ? 2 : 3;
    PyTypeObject *tp = (PyTypeObject *)type;
    PyObject *ev;
    int pool = c == NULL ? pool_of(type) : -1;
    if (pool >= 0 && m->npool[pool] > 0) {
        /* an emptied event of this type that nothing else references (recycle()) */
        ev = m->pool[pool][--m->npool[pool]];
    } else if (events_plain) {
        /* every item is set below, and the event is tracked only when it must be */
        ev = (PyObject *)PyObject_GC_NewVar(PyTupleObject, tp, size);
        if (ev == NULL) return -1;
    } else {
        ev = tp->tp_alloc(tp, size);
        if (ev == NULL) return -1;
        PyObject_GC_UnTrack(ev);
    }
    Py_INCREF(a);
    PyTuple_SET_ITEM(ev, 0, a);
    Py_INCREF(b);
    PyTuple_SET_ITEM(ev, 1, b);
    if (c != NULL) {
        Py_INCREF(c);
        PyTuple_SET_ITEM(ev, 2, c);
    }
    /* The path, the kind and the text are never containers: an event can be part of a
     * cycle only through a value the collector may track (a dict or list, even empty,
     * what a parse hook made).  The others stay away from the collector, which would
     * walk every event kept (the rule CPython applies to tuples). */
    if (PyObject_IS_GC(b) && !(PyTuple_CheckExact(b) && !PyObject_GC_IsTracked(b))) PyObject_GC_Track(ev);
    PyListObject *l = (PyListObject *)m->events;
    Py_ssize_t n = Py_SIZE(l);
    if (n < l->allocated) { /* room left (a reused list has some): the event moves in */
        PyList_SET_ITEM(l, n, ev);
        Py_SET_SIZE(l, n + 1);
        return 0;
    }
    int rc = PyList_Append(m->events, ev);
    Py_DECREF(ev);
    return rc;
}

/* A string's new text at a chunk boundary, sbuf[d:len], as a new reference: the chunk s
 * itself when it is exactly that text (a chunk inside a long string, the commonest
 * StringDelta), so the event costs no copy; checked character by character, so it is
 * right whatever the chunk held (escapes, held-back text). */
static PyObject *
delta_text(PyObject *sbuf, Py_ssize_t d, Py_ssize_t len, PyObject *s)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (len - d == n && PyUnicode_CheckExact(s)) {
        int k1 = PyUnicode_KIND(sbuf), k2 = PyUnicode_KIND(s);
        const void *d1 = PyUnicode_DATA(sbuf), *d2 = PyUnicode_DATA(s);
        int same;
        if (k1 == k2) {
            same = memcmp((const char *)d1 + d * k1, d2, (size_t)(n * k1)) == 0;
        } else {
            Py_ssize_t j = 0;
            while (j < n && PyUnicode_READ(k1, d1, d + j) == PyUnicode_READ(k2, d2, j)) j++;
            same = j == n;
        }
        if (same) {
            Py_INCREF(s);
            return s;
        }
    }
    return PyUnicode_Substring(sbuf, d, len);
}

/* ------------------------------------------------------------------ the live value */

/* Put v where the in-flight value lives: the root, an array's last item, or the key. */
static int
slot_set(Machine *m, PyObject *v)
{
    if (m->depth == 0) {
        Py_INCREF(v);
        Py_SETREF(m->root, v);
        return 0;
    }
    Frame *f = &m->stack[m->depth - 1];
    if (f->is_dict) return PyDict_SetItem(f->cont, m->key, v);
    Py_ssize_t n = PyList_GET_SIZE(f->cont);
    if (n == 0) return 0;
    Py_INCREF(v);
    return PyList_SetItem(f->cont, n - 1, v);
}

/* Attach a new value to the innermost container (or make it the root); *path gets
 * its path when events are on. */
static int
attach(Machine *m, PyObject *val, PyObject **path)
{
    *path = NULL;
    if (m->depth == 0) {
        Py_INCREF(val);
        Py_SETREF(m->root, val);
        if (m->events_on) {
            Py_INCREF(T_empty);
            *path = T_empty;
        }
        return 0;
    }
    Frame *f = &m->stack[m->depth - 1];
    if (f->is_dict) {
        if (m->events_on) {
            *path = path_child(f->path, m->key);
            if (*path == NULL) return -1;
        }
        return PyDict_SetItem(f->cont, m->key, val);
    }
    if (m->events_on) {
        /* the root array of release_items: its released items still count */
        Py_ssize_t at = PyList_GET_SIZE(f->cont) + (m->depth == 1 ? m->shift : 0);
        PyObject *idx = PyLong_FromSsize_t(at);
        if (idx == NULL) return -1;
        *path = path_child(f->path, idx);
        Py_DECREF(idx);
        if (*path == NULL) return -1;
    }
    return PyList_Append(f->cont, val);
}

/* A complete scalar: attach it, move on, report it. */
static int
scalar_done(Machine *m, PyObject *val, PyObject *kind)
{
    PyObject *path;
    if (attach(m, val, &path) < 0) {
        Py_XDECREF(path);
        return -1;
    }
    if (m->depth) {
        m->state = ST_AFTER;
    } else {
        m->state = ST_END;
        m->complete = 1;
        m->glue = 1;
    }
    if (path != NULL) {
        int rc = emit(m, H_ValueStart, path, kind, NULL);
        if (rc == 0 && kind != K_number && kind != K_bool && kind != K_null && PyUnicode_Check(val) &&
            PyUnicode_GET_LENGTH(val) > 0) /* an unquoted string (lenient): its text */
            rc = emit(m, H_StringDelta, path, val, NULL);
        if (rc == 0) rc = emit(m, H_ValueEnd, path, val, NULL);
        Py_DECREF(path);
        return rc;
    }
    return 0;
}

/* release_items: drop the root array's first k items (their ValueEnd went out). */
static int
release_first(Machine *m, Py_ssize_t k)
{
    if (k <= 0) return 0;
    m->shift += k;
    return PyList_SetSlice(m->root, 0, k, NULL);
}

/* release_items at the end of a feed (and of finish()): every item of the root array
 * has ended but the last one while it is still open (a container, or a string value). */
static int
release_ended(Machine *m)
{
    if (!m->r_on) return 0;
    Py_ssize_t len = PyList_GET_SIZE(m->root);
    int open = m->depth > 1 || (m->state == ST_STRING && !m->is_key);
    return release_first(m, len - (open && len > 0));
}

static int
close_container(Machine *m)
{
    Frame f = m->stack[--m->depth];
    int rc = 0;
    if (m->depth == 0 && m->r_on) /* every item went out with its ValueEnd */
        rc = release_first(m, PyList_GET_SIZE(f.cont));
    if (rc == 0 && m->events_on) rc = emit(m, H_ValueEnd, f.path, f.cont, NULL);
    Py_DECREF(f.cont);
    Py_XDECREF(f.path);
    if (rc < 0) return -1;
    if (m->depth) {
        m->state = ST_AFTER;
    } else {
        m->state = ST_END;
        m->complete = 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ growing strings */

static int
max_class(Py_UCS4 c)
{
    return c < 0x80 ? 0 : c < 0x100 ? 1 : c < 0x10000 ? 2 : 3;
}

/* Copy from[a:a+len] into to[at:], to being wide enough.  (Not PyUnicode_CopyCharacters:
 * for Latin-1 text into an ASCII string, CPython 3.11 checks the characters at the
 * start of `from` rather than those copied.) */
static void
copy_range(PyObject *to, Py_ssize_t at, PyObject *from, Py_ssize_t a, Py_ssize_t len)
{
    int tk = PyUnicode_KIND(to), fk = PyUnicode_KIND(from);
    void *td = PyUnicode_DATA(to);
    const void *fd = PyUnicode_DATA(from);
    if (tk == fk) {
        memcpy((char *)td + (size_t)at * (size_t)tk, (const char *)fd + (size_t)a * (size_t)fk,
               (size_t)len * (size_t)fk);
        return;
    }
    for (Py_ssize_t k = 0; k < len; k++) PyUnicode_WRITE(tk, td, at + k, PyUnicode_READ(fk, fd, a + k));
}

/* Make sbuf extra characters longer, able to hold maxc; the new room is at the end. */
static int
s_grow(Machine *m, Py_ssize_t extra, Py_UCS4 maxc)
{
    Py_UCS4 newmax = maxc > m->smax ? maxc : m->smax;
    Py_ssize_t old = m->sbuf == NULL ? 0 : PyUnicode_GET_LENGTH(m->sbuf);
    if (m->sbuf == NULL || max_class(newmax) != max_class(m->smax)) {
        PyObject *n = PyUnicode_New(old + extra, newmax);
        if (n == NULL) return -1;
        if (old) copy_range(n, 0, m->sbuf, 0, old);
        Py_XSETREF(m->sbuf, n);
    } else if (PyUnicode_Resize(&m->sbuf, old + extra) < 0) {
        return -1;
    }
    m->smax = newmax;
    return 0;
}

static Py_UCS4
range_max(int kind, const void *data, Py_ssize_t a, Py_ssize_t b)
{
    Py_UCS4 mx = 0;
    for (Py_ssize_t k = a; k < b; k++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, k);
        if (c > mx) mx = c;
    }
    return mx;
}

/* Append s[a:b] to sbuf. */
static int
s_append_range(Machine *m, PyObject *s, Py_ssize_t a, Py_ssize_t b)
{
    if (b <= a) return 0;
    Py_UCS4 mx = PyUnicode_MAX_CHAR_VALUE(s);
    if (m->sbuf == NULL || max_class(mx) > max_class(m->smax))
        mx = range_max(PyUnicode_KIND(s), PyUnicode_DATA(s), a, b);
    else
        mx = m->smax;
    Py_ssize_t old = m->sbuf == NULL ? 0 : PyUnicode_GET_LENGTH(m->sbuf);
    if (s_grow(m, b - a, mx) < 0) return -1;
    copy_range(m->sbuf, old, s, a, b - a);
    return 0;
}

static int
scr_reserve(Machine *m, Py_ssize_t extra)
{
    if (m->scr_len + extra > m->scr_cap) {
        Py_ssize_t cap = m->scr_cap ? m->scr_cap * 2 : 64;
        while (cap < m->scr_len + extra) cap *= 2;
        Py_UCS4 *p = PyMem_Realloc(m->scr, (size_t)cap * sizeof(Py_UCS4));
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        m->scr = p;
        m->scr_cap = cap;
    }
    return 0;
}

static inline int
scr_put(Machine *m, Py_UCS4 c)
{
    if (m->scr_len == m->scr_cap && scr_reserve(m, 1) < 0) return -1;
    m->scr[m->scr_len++] = c;
    if (c > m->scr_max) m->scr_max = c;
    return 0;
}

static int
scr_put_range(Machine *m, int kind, const void *data, Py_ssize_t a, Py_ssize_t b)
{
    if (b <= a) return 0;
    if (scr_reserve(m, b - a) < 0) return -1;
    Py_UCS4 *out = m->scr + m->scr_len;
    Py_UCS4 mx = m->scr_max;
    Py_ssize_t len = b - a;
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *in = (const Py_UCS1 *)data + a;
        for (Py_ssize_t k = 0; k < len; k++) {
            out[k] = in[k];
            if (in[k] > mx) mx = in[k];
        }
    } else if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *in = (const Py_UCS2 *)data + a;
        for (Py_ssize_t k = 0; k < len; k++) {
            out[k] = in[k];
            if (in[k] > mx) mx = in[k];
        }
    } else {
        const Py_UCS4 *in = (const Py_UCS4 *)data + a;
        for (Py_ssize_t k = 0; k < len; k++) {
            out[k] = in[k];
            if (in[k] > mx) mx = in[k];
        }
    }
    m->scr_len += len;
    m->scr_max = mx;
    return 0;
}

/* First index >= i of '"', '\\' or a control character in s[:n] (n if none). */
static Py_ssize_t
plain_run_end(int kind, const void *data, Py_ssize_t i, Py_ssize_t n)
{
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *p = (const Py_UCS1 *)data;
        while (i < n && p[i] != '"' && p[i] != '\\' && p[i] >= 0x20) i++;
    } else if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *p = (const Py_UCS2 *)data;
        while (i < n && p[i] != '"' && p[i] != '\\' && p[i] >= 0x20) i++;
    } else {
        const Py_UCS4 *p = (const Py_UCS4 *)data;
        while (i < n && p[i] != '"' && p[i] != '\\' && p[i] >= 0x20) i++;
    }
    return i;
}

/* Move what the current chunk decoded (scr, then s[seg:i]) into sbuf. */
static int
s_flush(Machine *m, PyObject *s, Py_ssize_t seg, Py_ssize_t i)
{
    if (m->scr_len == 0) return s_append_range(m, s, seg, i);
    if (scr_put_range(m, PyUnicode_KIND(s), PyUnicode_DATA(s), seg, i) < 0) return -1;
    Py_ssize_t old = m->sbuf == NULL ? 0 : PyUnicode_GET_LENGTH(m->sbuf);
    if (s_grow(m, m->scr_len, m->scr_max) < 0) return -1;
    int kind = PyUnicode_KIND(m->sbuf);
    void *data = PyUnicode_DATA(m->sbuf);
    for (Py_ssize_t k = 0; k < m->scr_len; k++) PyUnicode_WRITE(kind, data, old + k, m->scr[k]);
    m->scr_len = 0;
    m->scr_max = 0;
    return 0;
}

/* The finished text of the string that closes at s[i] (new reference). */
static PyObject *
s_final(Machine *m, PyObject *s, Py_ssize_t seg, Py_ssize_t i)
{
    if (m->sbuf == NULL) {
        if (m->scr_len == 0) return PyUnicode_Substring(s, seg, i);
        if (scr_put_range(m, PyUnicode_KIND(s), PyUnicode_DATA(s), seg, i) < 0) return NULL;
        PyObject *r = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, m->scr, m->scr_len);
        m->scr_len = 0;
        m->scr_max = 0;
        return r;
    }
    if (s_flush(m, s, seg, i) < 0) return NULL;
    PyObject *r = m->sbuf;
    m->sbuf = NULL;
    return r;
}

static Py_ssize_t
s_len(Machine *m)
{
    return m->sbuf == NULL ? 0 : PyUnicode_GET_LENGTH(m->sbuf);
}

/* Attach the in-flight string value to the live value (it did not close in its
 * opening chunk): report its start and hold its slot. */
static int
s_attach(Machine *m)
{
    PyObject *path;
    m->s_attached = 1;
    if (attach(m, S_empty, &path) < 0) {
        Py_XDECREF(path);
        return -1;
    }
    Py_XSETREF(m->s_path, path);
    if (path != NULL) return emit(m, H_ValueStart, path, K_string, NULL);
    return 0;
}

/* ------------------------------------------------------------------ escapes */

/* Could t (len < 6 chars) still grow into \uDC00-\uDFFF? */
static int
maybe_low(const Py_UCS4 *t, Py_ssize_t len)
{
    if (len >= 1 && t[0] != '\\') return 0;
    if (len >= 2 && t[1] != 'u') return 0;
    for (Py_ssize_t k = 2; k < len; k++)
        if (hexval(t[k]) < 0) return 0;
    if (len >= 3 && t[2] != 'd' && t[2] != 'D') return 0;
    if (len >= 4) {
        Py_UCS4 c = t[3];
        if (!(c == 'c' || c == 'd' || c == 'e' || c == 'f' || c == 'C' || c == 'D' || c == 'E' ||
              c == 'F'))
            return 0;
    }
    return 1;
}

static Py_ssize_t
low_prefix_len(const Py_UCS4 *t, Py_ssize_t len)
{
    Py_ssize_t k = 0;
    Py_ssize_t top = len < 6 ? len : 6;
    while (k < top && maybe_low(t, k + 1)) k++;
    return k;
}

static Py_UCS4
simple_escape(Py_UCS4 e)
{
    switch (e) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    }
    return 0xFFFFFFFF;
}

/* Offset of the first bad character of an escape t starts with, or -1. */
static Py_ssize_t
bad_escape_at(const Py_UCS4 *t, Py_ssize_t len)
{
    if (len < 2 || t[0] != '\\') return -1;
    if (t[1] == 'u') {
        for (Py_ssize_t k = 2; k < len && k < 6; k++)
            if (hexval(t[k]) < 0) return k;
        return -1;
    }
    return simple_escape(t[1]) == 0xFFFFFFFF ? 1 : -1;
}

/* ------------------------------------------------------------------ numbers */

static int
n_reserve(Machine *m, Py_ssize_t extra)
{
    if (m->nlen + extra + 1 > m->ncap) {
        Py_ssize_t cap = (m->nlen + extra + 1) * 2;
        if (cap < 64) cap = 64;
        char *p = PyMem_Realloc(m->nbuf, (size_t)cap);
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        m->nbuf = p;
        m->ncap = cap;
    }
    return 0;
}

/* The value of a complete number token, or the error at its first bad character. */
static PyObject *
number_value(Machine *m, const char *tok, Py_ssize_t len, Py_ssize_t pos)
{
    int st = N_START;
    Py_ssize_t k = 0;
    int is_float = 0;
    for (; k < len; k++) {
        int nx = ndfa_step(st, (unsigned char)tok[k]);
        if (nx == N_STUCK) break;
        st = nx;
        if (tok[k] == '.' || tok[k] == 'e' || tok[k] == 'E') is_float = 1;
    }
    if (k != len || !ndfa_accepts(st)) {
        fail_msg("Invalid number", pos + k);
        return NULL;
    }
    if (is_float) {
        if (m->parse_float != NULL)
            return PyObject_CallFunction(m->parse_float, "s#", tok, len);
        double d = PyOS_string_to_double(tok, NULL, NULL);
        if (d == -1.0 && PyErr_Occurred()) return NULL;
        return PyFloat_FromDouble(d);
    }
    if (len - (tok[0] == '-') > m->max_int) {
        raise_at(PyUnicode_FromFormat("integer longer than max_int_digits=%zd", m->max_int), pos, 1);
        return NULL;
    }
    if (m->parse_int != NULL) {
        PyObject *r = PyObject_CallFunction(m->parse_int, "s#", tok, len);
        if (r == NULL && PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            PyErr_NormalizeException(&type, &value, &tb);
            PyObject *msg = PyUnicode_FromFormat("integer rejected by parse_int (%S)", value);
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
            raise_at(msg, pos, 0);
        }
        return r;
    }
    PyObject *r = PyLong_FromString(tok, NULL, 10);
    if (r == NULL && PyErr_ExceptionMatches(PyExc_ValueError)) {
        PyErr_Clear(); /* more digits than int() converts at once */
        r = PyObject_CallFunction(H_big_int, "s#", tok, len);
    }
    return r;
}

/* ------------------------------------------------------------------ literals */

static const char *
literal_word(Machine *m, Py_UCS4 c, PyObject **val, PyObject **kind)
{
    switch (c) {
    case 't': *val = Py_True; *kind = K_bool; return "true";
    case 'f': *val = Py_False; *kind = K_bool; return "false";
    case 'n': *val = Py_None; *kind = K_null; return "null";
    case 'N': if (m->allow_nan) { *val = NULL; *kind = K_number; return "NaN"; } break;
    case 'I': if (m->allow_nan) { *val = NULL; *kind = K_number; return "Infinity"; } break;
    }
    return NULL;
}

/* ------------------------------------------------------------------ the machine */

static int
set_carry(Machine *m, PyObject *s, Py_ssize_t i, Py_ssize_t n)
{
    PyObject *c = PyUnicode_Substring(s, i, n);
    if (c == NULL) return -1;
    Py_XSETREF(m->carry, c);
    return 0;
}

/* After a high surrogate's escape, at s[j]: copy the next (up to) six characters into
 * nxt (*nl of them) and return the low surrogate they escape (\uDC00-\uDFFF), or 0
 * when they do not (yet) escape one.  Shared by the strict and lenient scans. */
static Py_UCS4
low_after(int kind, const void *data, Py_ssize_t n, Py_ssize_t j, Py_UCS4 nxt[6], Py_ssize_t *nl)
{
    Py_ssize_t got = n - j;
    if (got > 6) got = 6;
    for (Py_ssize_t k = 0; k < got; k++) nxt[k] = PyUnicode_READ(kind, data, j + k);
    *nl = got;
    if (got < 6 || nxt[0] != '\\' || nxt[1] != 'u') return 0;
    Py_UCS4 low = 0;
    for (int k = 2; k < 6; k++) {
        int h = hexval(nxt[k]);
        if (h < 0) return 0;
        low = low * 16 + (Py_UCS4)h;
    }
    return low >= 0xDC00 && low <= 0xDFFF ? low : 0;
}

/* Open the object or array c ('{' or '[') begins: attach it, push its frame, report
 * it, and expect its first member.  Shared by the strict and lenient scans (each
 * checks max_depth its own way first). */
static int
open_container(Machine *m, Py_UCS4 c)
{
    PyObject *cont = c == '{' ? PyDict_New() : PyList_New(0);
    if (cont == NULL) return -1;
    PyObject *path = NULL;
    if (attach(m, cont, &path) < 0) {
        Py_XDECREF(path);
        Py_DECREF(cont);
        return -1;
    }
    if (m->depth == m->cap) {
        Py_ssize_t cap = m->cap ? m->cap * 2 : 16;
        Frame *p = PyMem_Realloc(m->stack, (size_t)cap * sizeof(Frame));
        if (p == NULL) {
            Py_XDECREF(path);
            Py_DECREF(cont);
            PyErr_NoMemory();
            return -1;
        }
        m->stack = p;
        m->cap = cap;
    }
    if (m->depth == 0 && c == '[' && m->release) m->r_on = 1;
    Frame *f = &m->stack[m->depth++];
    f->cont = cont;
    f->path = path;
    f->is_dict = c == '{';
    if (path != NULL && emit(m, H_ValueStart, path, c == '{' ? K_object : K_array, NULL) < 0) return -1;
    m->state = c == '{' ? ST_KEY_FIRST : ST_ELEM_FIRST;
    return 0;
}

/* A string value closed with its final text (stolen): attach it (it opened in this
 * chunk) or set its slot, report it (ValueStart when it opened in this chunk, the last
 * StringDelta, ValueEnd) and move on past it.  Shared by the strict and lenient scans. */
static int
string_done(Machine *m, PyObject *text)
{
    Py_ssize_t tlen = PyUnicode_GET_LENGTH(text);
    int rc;
    if (!m->s_attached) {
        PyObject *path = NULL;
        rc = attach(m, text, &path);
        if (rc == 0 && path != NULL) {
            rc = emit(m, H_ValueStart, path, K_string, NULL);
            if (rc == 0 && tlen) rc = emit(m, H_StringDelta, path, text, NULL);
            if (rc == 0) rc = emit(m, H_ValueEnd, path, text, NULL);
        }
        Py_XDECREF(path);
    } else {
        rc = slot_set(m, text);
        if (rc == 0 && m->events_on) {
            if (tlen > m->d_start) {
                PyObject *d = PyUnicode_Substring(text, m->d_start, tlen);
                rc = d == NULL ? -1 : emit(m, H_StringDelta, m->s_path, d, NULL);
                Py_XDECREF(d);
            }
            if (rc == 0) rc = emit(m, H_ValueEnd, m->s_path, text, NULL);
        }
    }
    Py_DECREF(text);
    if (rc < 0) return -1;
    Py_CLEAR(m->s_path);
    if (m->depth) {
        m->state = ST_AFTER;
    } else {
        m->state = ST_END;
        m->complete = 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ lenient mode */

/* The lenient machine reads what valid JSON and the common lenient cases need: strings
 * (double- or single-quoted, with the inner_quote and missing_quote decisions and their
 * hold-back), numbers, literals and unquoted tokens in containers, unquoted keys,
 * trailing and missing commas, comments, whitespace and structure, in the reference's
 * order of checks.  Decisions that need the reference's lookahead rules, and every
 * repair report, call its own helpers.  At anything else (another repair, an error, the
 * end of an incomplete document) it hands the stream over to the Python machine
 * (jsonstream._resume), which resumes from the same state at the same character and
 * gives the stream back at the next member the C machine reads (take_back): the result
 * is the reference's by construction. */

#define OWNER(m) ((PyObject *)((char *)(m) - state_offset))

static int
is_uspace(Py_UCS4 c)
{
    return c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

/* What may follow a number (tokens.NUMBER_END). */
static int
number_end(Py_UCS4 c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ']' || c == '}' || c == '/' ||
           c == '"' || c == '[' || c == '{';
}

/* What ends the first word of a token in a container (tokens.token_word_run). */
static int
word_stop(Py_UCS4 c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '[' || c == ']' || c == '{' ||
           c == '}' || c == '"' || c == '/';
}

/* The stack as the reference's helpers read it here: [] or [innermost container]. */
static PyObject *
top_list(Machine *m)
{
    if (m->depth == 0) return PyList_New(0);
    PyObject *l = PyList_New(1);
    if (l == NULL) return NULL;
    PyObject *top = m->stack[m->depth - 1].cont;
    Py_INCREF(top);
    PyList_SET_ITEM(l, 0, top);
    return l;
}

/* The commonest answer of the reference's _string_cut without calling it: the ',' ']'
 * or '}' at s[i] inside a string value is text when what follows it in this chunk
 * already rules a missing closing quote out.  After a ',': up to 64 of ' \t\r\n', then
 * anything but '"' (or 65 of them), which neither of quotes.py's _MQ_OBJECT, _MQ_ARRAY
 * nor _MQ_PREFIX matches.  After ']' or '}': a run of closers, backticks and ASCII
 * blanks, then a printable ASCII character that lexicon.closer_tail does not take
 * (outside any container the answer is text at once).  Anything else (a quote, the
 * chunk's end, a character \s might match) goes to the reference.  Code in tool
 * arguments is full of these characters: the reference's call cost most of the
 * lenient time there. */
static int
cut_is_text(int kind, const void *data, Py_ssize_t i, Py_ssize_t n, Py_ssize_t depth)
{
    Py_UCS4 c = PyUnicode_READ(kind, data, i);
    Py_ssize_t k = i + 1;
    if (c == ',') {
        for (; k < n && k - i <= 65; k++) {
            Py_UCS4 d = PyUnicode_READ(kind, data, k);
            if (d == ' ' || d == '\t' || d == '\r' || d == '\n') continue;
            return d != '"';
        }
        return k - i > 65; /* 65 blanks: no member can follow within the patterns */
    }
    if (depth == 0) return 1;
    for (; k < n && k - i < 257; k++) {
        Py_UCS4 d = PyUnicode_READ(kind, data, k);
        if (d == ']' || d == '}' || d == '`' || d == ' ' || d == '\t' || d == '\r' || d == '\n')
            continue;
        return d > 0x20 && d < 0x7f;
    }
    return 0;
}

static Py_ssize_t
blanks_end(int kind, const void *data, Py_ssize_t k, Py_ssize_t n)
{
    Py_ssize_t start = k;
    while (k < n && k - start < 257) {
        Py_UCS4 c = PyUnicode_READ(kind, data, k);
        if (!is_ws(c) && !is_uspace(c)) break;
        k++;
    }
    return k;
}

/* quotes.decide_close for the quote before s[j], in its common cases (never at the end
 * of input: the C machine hands finish() over); V_ASK for the others. */
static int
fast_verdict(int kind, const void *data, Py_ssize_t n, Py_ssize_t j)
{
    Py_ssize_t k = blanks_end(kind, data, j, n);
    if (k - j > 256) return V_CLOSE;
    if (k >= n) return V_UNDECIDED;
    Py_UCS4 c = PyUnicode_READ(kind, data, k);
    if (c == '"' && k == j) return V_ASK;
    if (c == '}' || c == ']' || c == ':' || c == '"' || c == '\'' || c == '<') return V_CLOSE;
    if (c != ',') return V_ASK;
    Py_ssize_t k2 = blanks_end(kind, data, k + 1, n);
    if (k2 - k > 256) return V_CLOSE;
    if (k2 >= n) return V_UNDECIDED;
    Py_UCS4 d = PyUnicode_READ(kind, data, k2);
    if ((d < 128 && d && strchr("\"'{[]}/-0123456789.", (int)d) != NULL) || d == 0x2026 || d == 0x201C ||
        d == 0x201D || d == 0x2018 || d == 0x2019)
        return V_CLOSE;
    return V_ASK;
}

/* Where the string from s[a] closes when json's scanstring reads it (strict): the index
 * of its closing quote; -1 when scanstring fails or it does not close in s; -2 at a
 * \u escape (the reference's helper decides). */
static Py_ssize_t
prescan(int kind, const void *data, Py_ssize_t a, Py_ssize_t n)
{
    for (Py_ssize_t k = a; k < n; k++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, k);
        if (c == '"') return k;
        if (c < 0x20) return -1;
        if (c == '\\') {
            if (k + 1 >= n) return -1;
            Py_UCS4 e = PyUnicode_READ(kind, data, k + 1);
            if (e == 'u') return -2;
            if (simple_escape(e) == 0xFFFFFFFF) return -1;
            k++;
        }
    }
    return -1;
}

/* First index >= i of '"', '\\', a control character, ',', ']' or '}' (n if none). */
static Py_ssize_t
cut_run_end(int kind, const void *data, Py_ssize_t i, Py_ssize_t n)
{
    for (; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == '"' || c == '\\' || c < 0x20 || c == ',' || c == ']' || c == '}') break;
    }
    return i;
}

/* Ask a decision helper of the reference: helper(s, j, False, [top][, text]) -> verdict
 * (-2 on an exception). */
static int
ask(Machine *m, PyObject *helper, PyObject *s, Py_ssize_t j, PyObject *text)
{
    PyObject *stack = top_list(m);
    if (stack == NULL) return -2;
    PyObject *r = text != NULL ? PyObject_CallFunction(helper, "OnOOO", s, j, Py_False, stack, text)
                               : PyObject_CallFunction(helper, "OnOO", s, j, Py_False, stack);
    Py_DECREF(stack);
    if (r == NULL) return -2;
    long v = PyLong_AsLong(r);
    Py_DECREF(r);
    if (v == -1 && PyErr_Occurred()) return -2;
    return (int)v;
}

/* Read the Python machine's live value back (after it ran). */
static int
py_sync(Machine *m)
{
    PyObject *self = OWNER(m);
    if (off_root >= 0 && off_complete >= 0) { /* the slots themselves (once per chunk) */
        PyObject *r = *(PyObject **)((char *)self + off_root);
        PyObject *c = *(PyObject **)((char *)self + off_complete);
        if (r != NULL && (c == Py_True || c == Py_False)) {
            Py_INCREF(r);
            Py_SETREF(m->root, r);
            m->complete = c == Py_True;
            return 0;
        }
    }
    PyObject *r = PyObject_GetAttr(self, A_root);
    if (r == NULL) return -1;
    Py_SETREF(m->root, r);
    PyObject *c = PyObject_GetAttr(self, A_complete);
    if (c == NULL) return -1;
    int t = PyObject_IsTrue(c);
    Py_DECREF(c);
    if (t < 0) return -1;
    m->complete = t;
    return 0;
}

/* py_sync() keeping the exception being raised. */
static void
py_sync_raising(Machine *m)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (py_sync(m) < 0) PyErr_Clear();
    PyErr_Restore(type, value, tb);
}

/* Hand the stream over to the Python machine at s[i] (s[0] at stream offset base),
 * eof: at finish().  From now on every chunk goes to its send, until it gives the
 * stream back: *back gets what it yielded first (a state to take back, or None). */
static int
handover(Machine *m, PyObject *s, Py_ssize_t i, Py_ssize_t base, int eof, PyObject **back)
{
    *back = NULL;
    if (m->state == ST_STRING && !m->is_key && !m->s_attached && s_attach(m) < 0) return -1;
    PyObject *stack = PyList_New(m->depth);
    PyObject *cpaths = PyList_New(m->events_on ? m->depth : 0);
    PyObject *nbuf = PyUnicode_FromStringAndSize(m->nbuf != NULL ? m->nbuf : "",
                                                 m->state == ST_NUMBER ? m->nlen : 0);
    if (stack == NULL || cpaths == NULL || nbuf == NULL) {
        Py_XDECREF(stack);
        Py_XDECREF(cpaths);
        Py_XDECREF(nbuf);
        return -1;
    }
    for (Py_ssize_t k = 0; k < m->depth; k++) {
        Frame *f = &m->stack[k];
        Py_INCREF(f->cont);
        PyList_SET_ITEM(stack, k, f->cont);
        if (m->events_on) {
            Py_INCREF(f->path);
            PyList_SET_ITEM(cpaths, k, f->path);
        }
    }
    int is_str = m->state == ST_STRING;
    /* The Python machine gives the stream back at once, unless the C machine's last
       stretch was short (a hand-over costs about as much as 100-200 characters on the
       Python machine): then it keeps the stream for a while, longer each time. */
    Py_ssize_t at = base + i;
    if (m->handovers > 0 && at - m->back_pos < 96)
        m->delay = m->delay < ((Py_ssize_t)1 << 24) ? m->delay * 2 + 256 : m->delay;
    else
        m->delay = 0;
    Py_ssize_t give_back = eof ? -1 : at + m->delay;
    /* a Handover (state.py), filled by field name; a failed item fails the whole */
    PyTypeObject *ho = (PyTypeObject *)H_Handover;
    PyObject *st = ho->tp_alloc(ho, HO_COUNT);
    if (st == NULL) {
        Py_DECREF(stack);
        Py_DECREF(cpaths);
        Py_DECREF(nbuf);
        return -1;
    }
#define PUT(name, v) PyTuple_SET_ITEM(st, HO_##name, (v))
#define PUT_REF(name, v) PUT(name, Py_NewRef(v))
    PUT(stack, stack);
    PUT(cpaths, cpaths);
    PUT_REF(key, m->key != NULL ? m->key : Py_None);
    PUT(state, PyLong_FromLong(m->state));
    PUT_REF(glue, m->glue ? Py_True : Py_False);
    PUT_REF(rlist, m->r_on ? m->root : Py_None);
    PUT(shift, PyLong_FromSsize_t(m->shift));
    PUT_REF(is_key, m->is_key ? Py_True : Py_False);
    PUT_REF(sbuf, is_str && m->sbuf != NULL                 ? m->sbuf
                  : m->state == ST_UKEY && m->ubuf != NULL ? m->ubuf
                                                           : S_empty);
    PUT_REF(s_path, is_str && m->s_path != NULL ? m->s_path : T_empty);
    PUT(d_start, PyLong_FromSsize_t(is_str ? m->d_start : 0));
    PUT(s_pos, PyLong_FromSsize_t(m->s_pos));
    PUT(nbuf, nbuf);
    PUT(n_pos, PyLong_FromSsize_t(m->n_pos));
    PUT_REF(ubuf, m->ubuf != NULL ? m->ubuf : S_empty);
    PUT(u_pos, PyLong_FromSsize_t(m->u_pos));
    PUT(base, PyLong_FromSsize_t(base));
    PUT_REF(eof, eof ? Py_True : Py_False);
    PUT_REF(s, s);
    PUT(i, PyLong_FromSsize_t(i));
    PUT(give_back, PyLong_FromSsize_t(give_back));
    PUT(quote, PyUnicode_FromOrdinal(is_str && m->quote == '\'' ? '\'' : '"'));
    PUT_REF(c_end, m->state == ST_COMMENT ? (m->c_block ? S_block_end : S_line_end) : S_empty);
    PUT(c_ret, PyLong_FromLong(m->c_ret));
    PUT_REF(c_closer, m->c_closer ? Py_True : Py_False);
    PUT_REF(c_tail, m->c_tail != NULL ? m->c_tail : S_empty);
    PUT_REF(ctrl_seen, is_str && m->ctrl_seen ? Py_True : Py_False);
#undef PUT
#undef PUT_REF
    for (int k = 0; k < HO_COUNT; k++) {
        if (PyTuple_GET_ITEM(st, k) == NULL) {
            Py_DECREF(st);
            return -1;
        }
    }
    /* the C machine's state is the Python machine's now */
    m->state = ST_PY;
    m->py = 1;
    while (m->depth > 0) {
        Frame *f = &m->stack[--m->depth];
        Py_CLEAR(f->cont);
        Py_CLEAR(f->path);
    }
    Py_CLEAR(m->sbuf);
    Py_CLEAR(m->s_path);
    Py_CLEAR(m->ubuf);
    Py_CLEAR(m->carry);
    Py_CLEAR(m->c_tail);
    m->nlen = 0;
    PyObject *self = OWNER(m);
    PyObject *r = PyObject_CallFunction(H_resume, "OOOOOOONO", self, m->options,
                                        m->events_on ? m->events : Py_None, m->repairs, m->tail, m->root,
                                        m->complete ? Py_True : Py_False, st,
                                        m->handovers == 0 ? Py_True : Py_False);
    m->handovers++;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *send = PyObject_GetAttr(self, A_send);
    if (send == NULL)
        PyErr_Clear();
    else
        Py_XSETREF(m->send, send);
    if (py_sync(m) < 0) PyErr_Clear();
    PyErr_Restore(type, value, tb);
    if (r == NULL) return -1;
    *back = r;
    return 0;
}

/* Take the stream back from the Python machine where it yielded its state t, a
 * Giveback (state.py) read by field name: at s[i] in the chunk (s None: at the chunk
 * boundary). */
#define GB(t, name) PyTuple_GET_ITEM((t), GB_##name)
static int
take_back(Machine *m, PyObject *t)
{
    if (!Py_IS_TYPE(t, (PyTypeObject *)H_Giveback) || PyTuple_GET_SIZE(t) != GB_COUNT ||
        !PyList_CheckExact(GB(t, stack)) || !PyList_CheckExact(GB(t, cpaths)))
    {
        PyErr_SetString(PyExc_RuntimeError, "JsonStream: the Python machine gave back a bad state");
        return -1;
    }
    PyObject *stack = GB(t, stack), *cpaths = GB(t, cpaths);
    Py_ssize_t depth = PyList_GET_SIZE(stack);
    long state = PyLong_AsLong(GB(t, state));
    Py_ssize_t shift = PyLong_AsSsize_t(GB(t, shift));
    int glue = PyObject_IsTrue(GB(t, glue));
    if (PyErr_Occurred()) return -1;
    if (m->events_on && PyList_GET_SIZE(cpaths) != depth) {
        PyErr_SetString(PyExc_RuntimeError, "JsonStream: the Python machine gave back a bad state");
        return -1;
    }
    while (m->depth > 0) { /* (none: the hand-over emptied the stack) */
        Frame *f = &m->stack[--m->depth];
        Py_CLEAR(f->cont);
        Py_CLEAR(f->path);
    }
    if (depth > m->cap) {
        Frame *p = PyMem_Realloc(m->stack, (size_t)depth * sizeof(Frame));
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        m->stack = p;
        m->cap = depth;
    }
    for (Py_ssize_t k = 0; k < depth; k++) {
        Frame *f = &m->stack[k];
        f->cont = PyList_GET_ITEM(stack, k);
        Py_INCREF(f->cont);
        f->is_dict = PyDict_CheckExact(f->cont);
        f->path = NULL;
        if (m->events_on) {
            f->path = PyList_GET_ITEM(cpaths, k);
            Py_INCREF(f->path);
        }
    }
    m->depth = depth;
    PyObject *key = GB(t, key);
    if (key == Py_None) {
        Py_CLEAR(m->key);
    } else {
        Py_INCREF(key);
        Py_XSETREF(m->key, key);
    }
    m->state = (int)state;
    m->glue = glue;
    m->r_on = GB(t, rlist) != Py_None;
    m->shift = shift;
    m->py = 0;
    Py_CLEAR(m->send);
    m->back_pos = m->pos; /* at the chunk boundary (the caller says where inside it) */
    return 0;
}

static int scan_lenient(Machine *m, PyObject *s, Py_ssize_t i);

/* What the Python machine yielded (stolen): None, or its state, which the C machine
 * takes back, reading the rest of the chunk when it came back inside it. */
static int
given_back(Machine *m, PyObject *r)
{
    if (r == Py_None) {
        Py_DECREF(r);
        return 0;
    }
    if (take_back(m, r) < 0) {
        Py_DECREF(r);
        return -1;
    }
    PyObject *s = GB(r, s);
    if (s == Py_None || !PyUnicode_CheckExact(s)) {
        Py_DECREF(r);
        return 0;
    }
    Py_ssize_t i = PyLong_AsSsize_t(GB(r, i));
    Py_INCREF(s);
    Py_DECREF(r);
    if (i == -1 && PyErr_Occurred()) {
        Py_DECREF(s);
        return -1;
    }
    m->back_pos = m->pos - PyUnicode_GET_LENGTH(s) + i;
    return scan_lenient(m, s, i);
}

/* A chunk (None: finish()) for the Python machine, once handed over. */
static int
run_py(Machine *m, PyObject *text)
{
    if (m->send == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "JsonStream: the Python machine did not start");
        return -1;
    }
    PyObject *r = PyObject_CallOneArg(m->send, text);
    if (r == NULL) {
        if (!(text == Py_None && PyErr_ExceptionMatches(PyExc_StopIteration))) {
            py_sync_raising(m);
            return -1;
        }
        PyErr_Clear(); /* the machine ran to its end */
        return py_sync(m);
    }
    if (py_sync(m) < 0) {
        Py_DECREF(r);
        return -1;
    }
    return given_back(m, r);
}

/* finish() of a lenient stream not complete yet: the Python machine reads what was
 * held back with the end of input as its delimiter, and ends the stream. */
static int
finish_lenient(Machine *m)
{
    PyObject *rest = m->carry != NULL ? m->carry : S_empty;
    Py_INCREF(rest);
    Py_ssize_t base = m->pos - PyUnicode_GET_LENGTH(rest);
    PyObject *back;
    int rc = handover(m, rest, 0, base, 1, &back);
    Py_DECREF(rest);
    Py_XDECREF(back); /* at the end of input the machine ends: never a state */
    return rc;
}

/* Report a repair as the reference does (its _repair helper). */
static int
report(Machine *m, PyObject *kind, Py_ssize_t pos, PyObject *msg)
{
    PyObject *r =
        PyObject_CallFunction(H_repair, "OOOnO", m->repairs, m->events_on ? m->events : Py_None, kind, pos, msg);
    if (r == NULL) return -1;
    Py_DECREF(r);
    return 0;
}

/* A comment at s[i] ('/' or '#', comment kind allowed) that ends in this chunk: report
 * it as the reference does (_comment_open) and return the index past its end; -1 when
 * the reference must decide (an invalid opener, the chunk ends first); -2 on error. */
static Py_ssize_t
skip_comment(Machine *m, int kind, const void *data, Py_ssize_t n, Py_ssize_t i, Py_ssize_t base)
{
    if (i + 1 >= n) return -1;
    Py_UCS4 c = PyUnicode_READ(kind, data, i), d = PyUnicode_READ(kind, data, i + 1);
    Py_ssize_t k;
    int block = 0;
    if (c == '#') {
        if (!(d == ' ' || d == '\t' || d == '\r' || d == '\n' || d == '#' || d == '!')) return -1;
        k = i + 1;
    } else if (d == '/' || d == '*') {
        block = d == '*';
        k = i + 2;
    } else {
        return -1;
    }
    for (; k < n; k++) {
        Py_UCS4 e = PyUnicode_READ(kind, data, k);
        if (block ? (e == '*' && k + 1 < n && PyUnicode_READ(kind, data, k + 1) == '/') : e == '\n') break;
    }
    if (report(m, R_comment, base + i, c == '#' ? M_hash_comment : M_comment) < 0) return -2;
    if (k < n) return k + (block ? 2 : 1);
    /* it goes on past the chunk: the comment state reads on (from past its opener) */
    m->c_block = block;
    m->c_ret = m->state;
    m->c_closer = 0;
    Py_CLEAR(m->c_tail);
    m->state = ST_COMMENT;
    return c == '#' ? i + 1 : i + 2;
}

/* decisions._COMMENT_MEMBER.search(t): a closer, a comma and the next member. */
static int
comment_member(PyObject *t)
{
    int kind = PyUnicode_KIND(t);
    const void *data = PyUnicode_DATA(t);
    Py_ssize_t n = PyUnicode_GET_LENGTH(t);
    for (Py_ssize_t p = 0; p < n; p++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, p);
        if (c != ']' && c != '}') continue;
        Py_ssize_t q = p + 1, sp = 0;
        while (q < n && sp <= 16 && (PyUnicode_READ(kind, data, q) == ' ' || PyUnicode_READ(kind, data, q) == '\t')) {
            q++;
            sp++;
        }
        if (sp > 16 || q >= n || PyUnicode_READ(kind, data, q) != ',') continue;
        q++;
        sp = 0;
        while (q < n && sp <= 16 && (PyUnicode_READ(kind, data, q) == ' ' || PyUnicode_READ(kind, data, q) == '\t')) {
            q++;
            sp++;
        }
        if (sp > 16 || q >= n) continue;
        Py_UCS4 d = PyUnicode_READ(kind, data, q);
        if (d == '"' || d == '\'' || (d >= 'A' && d <= 'Z') || (d >= 'a' && d <= 'z') || d == '_' || d == '$')
            return 1;
    }
    return 0;
}

static int
ident_char(Py_UCS4 c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
           c == '-';
}

/* The value of an unquoted token (lenient, in a container) that ended at s[i]: plain
 * literals here, anything else by the reference's _token (which reports its repairs). */
static int
token_done(Machine *m, PyObject *s, Py_ssize_t i, Py_ssize_t base, Py_ssize_t *next)
{
    PyObject *tok = m->ubuf;
    m->ubuf = NULL;
    PyObject *val = NULL, *kind_obj = NULL, *res = NULL;
    int rc = -1;
    if (PyUnicode_CompareWithASCIIString(tok, "true") == 0) {
        val = Py_True;
        kind_obj = K_bool;
    } else if (PyUnicode_CompareWithASCIIString(tok, "false") == 0) {
        val = Py_False;
        kind_obj = K_bool;
    } else if (PyUnicode_CompareWithASCIIString(tok, "null") == 0) {
        val = Py_None;
        kind_obj = K_null;
    } else {
        res = PyObject_CallFunction(H_token, "OOOOnOO", tok, m->k_space ? tok : S_empty, Py_False, m->token_opts,
                                    m->u_pos, m->repairs, m->events_on ? m->events : Py_None);
        if (res == NULL) goto done;
        if (!PyTuple_Check(res) || PyTuple_GET_SIZE(res) != 2) {
            PyErr_SetString(PyExc_TypeError, "_token: expected (value, kind)");
            goto done;
        }
        val = PyTuple_GET_ITEM(res, 0);
        kind_obj = PyTuple_GET_ITEM(res, 1);
        if (m->k_mquote && PyUnicode_READ_CHAR(s, i) == '"' && PyUnicode_Check(kind_obj) &&
            PyUnicode_CompareWithASCIIString(kind_obj, "string") == 0) {
            /* '[a", "b"]': the quote glued to the word closes it */
            PyObject *g = PyObject_CallFunction(H_glued_quote, "OOnO", m->repairs,
                                                m->events_on ? m->events : Py_None, base + i, K_string_word);
            if (g == NULL) goto done;
            Py_DECREF(g);
            i++;
        }
    }
    rc = scalar_done(m, val, kind_obj);
    *next = i;
done:
    Py_XDECREF(res);
    Py_DECREF(tok);
    return rc;
}

/* ------------------------------------------------------------------ the scan's steps */

/* One scan reads a chunk for both modes: scan(m, s, i, lenient) is inlined into run()
 * (strict) and scan_lenient() with lenient a constant, so each gets its own loop with
 * the other mode's branches compiled out.  The loop dispatches on the state to the
 * steps, named as the Python machine's (jsonstream._machine): step_string,
 * step_after_root, step_number, step_comment, step_token, step_after_value,
 * step_value, step_key and step_colon, then step_boundary at the chunk's end;
 * step_setup makes the text a chunk starts and step_end ends the input.  A step reads
 * from sc->i and leaves sc->i where it stopped; it returns STEP_ON (0) to go on,
 * STEP_FAIL (-1) with an exception set, or STEP_HAND (lenient) to hand the stream
 * over to the Python machine at sc->hand.  A step hands over only at the start of a
 * construct or where the construct's state is the machine's (m->state and the
 * in-flight buffers), never halfway through its own locals, so the hand-over (and a
 * take-back) always falls between steps. */

#if defined(__GNUC__) || defined(__clang__)
#define STEP static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define STEP static __forceinline
#else
#define STEP static inline
#endif

enum { STEP_ON = 0, STEP_FAIL = -1, STEP_HAND = 1 };

typedef struct {
    PyObject *s; /* what was held back and the chunk (owned by the scan) */
    int kind;
    const void *data;
    Py_ssize_t n, base; /* len(s); the stream offset of s[0] */
    Py_ssize_t i;       /* where the next step reads */
    Py_ssize_t hand;    /* STEP_HAND: where the Python machine takes over */
    Py_ssize_t fast_end; /* lenient: the closing quote of a string value read in one piece */
} Scan;

/* The scan's text in locals (the steps' loops read them in registers). */
#define SCAN_TEXT(sc)                         \
    const int kind = (sc)->kind;              \
    const void *const data = (sc)->data;      \
    const Py_ssize_t n = (sc)->n;             \
    const Py_ssize_t base = (sc)->base;       \
    (void)n, (void)base
#define CH(k) PyUnicode_READ(kind, data, (k))

/* Hand over at s[k] (lenient). */
STEP int
hand_at(Scan *sc, Py_ssize_t k)
{
    sc->hand = k;
    return STEP_HAND;
}

/* A string opens at stream offset pos (its quote read). */
STEP void
string_open(Machine *m, Py_ssize_t pos, int is_key)
{
    m->state = ST_STRING;
    m->is_key = is_key;
    if (!is_key) {
        m->s_attached = 0;
        m->d_start = 0;
    }
    m->s_first = 1;
    m->s_pos = pos;
    m->smax = 0;
    Py_CLEAR(m->sbuf);
}

/* A comment opener at s[i] read on (lenient, comment kind), or the hand-over. */
STEP int
comment_or_hand(Machine *m, Scan *sc, Py_UCS4 c)
{
    if ((c == '/' || c == '#') && m->k_comment) {
        Py_ssize_t e = skip_comment(m, sc->kind, sc->data, sc->n, sc->i, sc->base);
        if (e == -2) return STEP_FAIL;
        if (e < 0) return hand_at(sc, sc->i);
        sc->i = e;
        return STEP_ON;
    }
    return hand_at(sc, sc->i);
}

/* The chunk's text: what was held back, then the chunk (a new reference), with the
 * in-flight string's slot released so that it can grow in place. */
STEP PyObject *
step_setup(Machine *m, PyObject *chunk, int lenient)
{
    PyObject *s;
    if (!lenient && m->state == ST_NUMBER && m->allow_nan && m->nlen == 1 && m->nbuf[0] == '-' &&
        PyUnicode_GET_LENGTH(chunk) > 0 && PyUnicode_READ_CHAR(chunk, 0) == 'I') {
        /* "-" ended the last chunk and "Infinity" follows: re-read it as a literal */
        PyObject *c = PyUnicode_FromString("-");
        if (c == NULL) return NULL;
        Py_XSETREF(m->carry, c);
        m->state = ST_VALUE;
        m->nlen = 0;
    }
    if (m->carry != NULL) {
        s = PyUnicode_Concat(m->carry, chunk);
        if (s == NULL) return NULL;
        Py_CLEAR(m->carry);
    } else {
        Py_INCREF(chunk);
        s = chunk;
    }
    if (m->state == ST_STRING && !m->is_key && m->s_attached) {
        /* release the slot so the string can grow in place */
        if (slot_set(m, S_empty) < 0) {
            Py_DECREF(s);
            return NULL;
        }
    }
    return s;
}

/* The in-flight string (or key) from sc->i: its plain runs, escapes, closing quote;
 * lenient: the quote's verdict, single quotes, raw control characters, and a ',' ']'
 * or '}' that may end a string missing its closing quote. */
STEP int
step_string(Machine *m, Scan *sc, const int lenient)
{
    SCAN_TEXT(sc);
    PyObject *const s = sc->s;
    Py_ssize_t i = sc->i;
    Py_ssize_t seg = i;
    const char *err_msg = NULL; /* strict: the error at bad (lenient: hand over there) */
    Py_ssize_t err_pos = 0;
    for (;;) {
        const Py_UCS4 q = lenient ? m->quote : '"';
        if (lenient && q == '\'') { /* a single-quoted string: raw control characters are text */
            while (i < n) {
                Py_UCS4 d = CH(i);
                if (d == '\'' || d == '\\') break;
                i++;
            }
        } else if (lenient && m->k_mquote && !m->is_key && sc->fast_end < 0) {
            i = cut_run_end(kind, data, i, n);
        } else {
            i = plain_run_end(kind, data, i, n);
        }
        if (i >= n) {
            if (s_flush(m, s, seg, n) < 0) return STEP_FAIL;
            goto chunk_end;
        }
        Py_UCS4 c = CH(i);
        if (c == q) {
            if (lenient && !m->is_key && m->k_inner && i != sc->fast_end) {
                int v = fast_verdict(kind, data, n, i + 1);
                if (v == V_ASK) {
                    if (s_flush(m, s, seg, i) < 0) return STEP_FAIL;
                    seg = i;
                    v = ask(m, H_close_verdict, s, i + 1, m->sbuf != NULL ? m->sbuf : S_empty);
                    if (v == -2) return STEP_FAIL;
                }
                if (v == V_UNDECIDED) goto carry;
                if (v != V_CLOSE) goto bad; /* an inner quote, or "a" + "b" */
            }
            if (lenient) sc->fast_end = -1;
            PyObject *text = s_final(m, s, seg, i);
            if (text == NULL) return STEP_FAIL;
            Py_ssize_t tlen = PyUnicode_GET_LENGTH(text);
            i++;
            if (m->is_key) {
                if (!lenient && m->max_tok >= 0 && tlen > m->max_tok) {
                    Py_DECREF(text);
                    raise_at(PyUnicode_FromFormat(m->s_first ? "key longer than max_token_chars=%zd"
                                                             : "string longer than max_token_chars=%zd",
                                                  m->max_tok),
                             m->s_pos, 1);
                    return STEP_FAIL;
                }
                Py_XSETREF(m->key, text);
                m->state = ST_COLON;
                break;
            }
            if (!lenient && m->max_tok >= 0 && tlen > m->max_tok) {
                if (m->s_attached) {
                    m->sbuf = text; /* the partial shows it */
                } else {
                    Py_DECREF(text);
                    m->state = ST_VALUE; /* opened in this chunk: the string never showed */
                }
                raise_at(PyUnicode_FromFormat("string longer than max_token_chars=%zd", m->max_tok), m->s_pos, 1);
                return STEP_FAIL;
            }
            if (string_done(m, text) < 0) return STEP_FAIL;
            break;
        }
        if (c == '\\') {
            if (scr_put_range(m, kind, data, seg, i) < 0) return STEP_FAIL;
            seg = i;
            if (i + 1 >= n) goto carry;
            Py_UCS4 e = CH(i + 1);
            if (e == 'u') {
                Py_ssize_t avail = n - (i + 2);
                if (avail > 4) avail = 4;
                Py_UCS4 cp = 0;
                for (Py_ssize_t off = 0; off < avail; off++) {
                    int h = hexval(CH(i + 2 + off));
                    if (h < 0) {
                        err_msg = "Invalid \\uXXXX escape";
                        err_pos = base + i + 2 + off;
                        goto bad;
                    }
                    cp = cp * 16 + (Py_UCS4)h;
                }
                if (avail < 4) goto carry;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    Py_UCS4 nxt[6];
                    Py_ssize_t nl;
                    Py_UCS4 low = low_after(kind, data, n, i + 6, nxt, &nl);
                    if (low) {
                        if (scr_put(m, 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)) < 0) return STEP_FAIL;
                        i += 12;
                        seg = i;
                        continue;
                    }
                    if (nl < 6 && maybe_low(nxt, nl)) goto carry;
                    /* a lone high surrogate: but a broken escape after it fails
                       first, so the partial never shows the held half */
                    Py_ssize_t bad = bad_escape_at(nxt, nl);
                    if (bad >= 0 && bad <= low_prefix_len(nxt, nl)) {
                        err_msg = "Invalid \\escape";
                        err_pos = base + i + 6 + bad;
                        goto bad;
                    }
                }
                if (scr_put(m, cp) < 0) return STEP_FAIL;
                i += 6;
                seg = i;
                continue;
            }
            Py_UCS4 dec = lenient && e == '\'' && q == '\'' ? '\'' : simple_escape(e);
            if (dec == 0xFFFFFFFF) { /* lenient: \' in "...", or an invalid escape */
                err_msg = "Invalid \\escape";
                err_pos = base + i + 1;
                goto bad;
            }
            if (scr_put(m, dec) < 0) return STEP_FAIL;
            i += 2;
            seg = i;
            continue;
        }
        if (!lenient || c < 0x20) {
            /* a raw control character; lenient: text, reported once per string */
            if (!lenient || !m->k_ctrl) {
                err_msg = "Invalid control character in string";
                err_pos = base + i;
                goto bad;
            }
            if (!m->ctrl_seen) {
                /* (the string value shows from its opening quote, as it streams) */
                if (!m->is_key && !m->s_attached && s_attach(m) < 0) return STEP_FAIL;
                if (report(m, R_control, base + i, M_control) < 0) return STEP_FAIL;
                m->ctrl_seen = 1;
            }
            i++;
            continue;
        }
        /* (lenient) a ',' ']' or '}' in a string value: its closing quote may be missing */
        if (cut_is_text(kind, data, i, n, m->depth)) {
            i++;
            continue;
        }
        int v = ask(m, H_string_cut, s, i, NULL);
        if (v == -2) return STEP_FAIL;
        if (v == V_UNDECIDED) goto carry;
        if (v == V_CLOSE) goto bad;
        i++;
        continue;

    bad: /* strict: the error; lenient: the Python machine reads on from s[i] */
        if (s_flush(m, s, seg, i) < 0) return STEP_FAIL;
        if (lenient) {
            sc->i = i;
            return hand_at(sc, i);
        }
        fail_msg(err_msg, err_pos);
        return STEP_FAIL;
    carry: /* undecided until the next chunk: s[i:] is held back */
        if (s_flush(m, s, seg, i) < 0) return STEP_FAIL;
        if (set_carry(m, s, i, n) < 0) return STEP_FAIL;
        i = n;
    chunk_end:
        if (!m->is_key && !m->s_attached && s_attach(m) < 0) return STEP_FAIL;
        if (!lenient && m->max_tok >= 0 && s_len(m) > m->max_tok) {
            raise_at(PyUnicode_FromFormat("string longer than max_token_chars=%zd", m->max_tok), m->s_pos, 1);
            return STEP_FAIL;
        }
        break;
    }
    sc->i = i;
    return STEP_ON;
}

/* After the root value ended (a fenced one too: the fence's tail is trailing text):
 * glued text, trailing text (ignore_trailing), blanks; lenient: a stray closer, a
 * comment; anything else is an error (strict) or the Python machine's. */
STEP int
step_after_root(Machine *m, Scan *sc, Py_UCS4 c, const int lenient)
{
    SCAN_TEXT(sc);
    Py_ssize_t i = sc->i;
    if (m->glue) {
        if (Py_UNICODE_ISALNUM(c) || c == '_' || c == '$' || c == '.' || c == '+' || c == '-') {
            if (lenient) return hand_at(sc, i);
            m->glue = 0;
            /* "12abc", "false$": never a silent prefix of one token */
            fail_msg("Invalid value: text glued to it", base + i);
            return STEP_FAIL;
        }
        m->glue = 0;
    }
    if (lenient && (c == ']' || c == '}') && PyList_GET_SIZE(m->tail) == 0) return hand_at(sc, i);
    if (m->ignore_trailing) {
        PyObject *text = PyUnicode_Substring(sc->s, i, n);
        if (text == NULL) return STEP_FAIL;
        int rc = PyList_Append(m->tail, text);
        if (rc == 0 && m->events_on) {
            PyObject *p = PyLong_FromSsize_t(base + i);
            rc = p == NULL ? -1 : emit(m, H_Skipped, K_trailing, p, text);
            Py_XDECREF(p);
        }
        Py_DECREF(text);
        if (rc < 0) return STEP_FAIL;
        sc->i = n;
        return STEP_ON;
    }
    if (is_ws(c)) {
        while (i < n && is_ws(CH(i))) i++;
        sc->i = i;
        return STEP_ON;
    }
    if (lenient) return comment_or_hand(m, sc, c);
    fail_msg("Extra data after the JSON value", base + i);
    return STEP_FAIL;
}

/* The number going on from the last chunk (state number): its characters in this
 * chunk, and its value once a character ends it. */
STEP int
step_number(Machine *m, Scan *sc, Py_UCS4 c, const int lenient)
{
    SCAN_TEXT(sc);
    Py_ssize_t i = sc->i;
    if (lenient && m->nlen == 1 && m->nbuf[0] == '-' && c == 'I') return hand_at(sc, i);
    Py_ssize_t j = i;
    while (j < n && is_numchar(CH(j))) j++;
    if (n_reserve(m, j - i) < 0) return STEP_FAIL;
    int nst = m->ndfa;
    for (Py_ssize_t k = i; k < j; k++) {
        nst = ndfa_step(nst, CH(k));
        if (nst == N_STUCK) {
            if (lenient) return hand_at(sc, i);
            fail_msg("Invalid number", m->n_pos + m->nlen + (k - i));
            return STEP_FAIL;
        }
    }
    m->ndfa = nst;
    for (Py_ssize_t k = i; k < j; k++) m->nbuf[m->nlen++] = (char)CH(k);
    m->nbuf[m->nlen] = 0;
    sc->i = i = j;
    if (!lenient && m->max_tok >= 0 && m->nlen > m->max_tok) {
        raise_at(PyUnicode_FromFormat("number longer than max_token_chars=%zd", m->max_tok), m->n_pos, 1);
        return STEP_FAIL;
    }
    if (i >= n) return STEP_ON;
    if (lenient) {
        Py_UCS4 d = CH(i);
        if (m->k_token && d == '/' && i + 1 >= n) {
            if (set_carry(m, sc->s, i, n) < 0) return STEP_FAIL;
            sc->i = n;
            return STEP_ON;
        }
        if (m->k_token && (!number_end(d) || (d == '/' && CH(i + 1) != '/' && CH(i + 1) != '*')))
            return hand_at(sc, i);
        if (!ndfa_accepts(m->ndfa)) return hand_at(sc, i);
    }
    PyObject *val = number_value(m, m->nbuf, m->nlen, m->n_pos);
    if (val == NULL) return STEP_FAIL;
    m->nlen = 0;
    int rc = scalar_done(m, val, K_number);
    Py_DECREF(val);
    return rc < 0 ? STEP_FAIL : STEP_ON;
}

/* The value of the number token s[i:j] that ends in this chunk (new reference). */
STEP PyObject *
number_token(Machine *m, int kind, const void *data, Py_ssize_t i, Py_ssize_t j, Py_ssize_t pos)
{
    char small[64];
    char *tok = small;
    Py_ssize_t len = j - i;
    if (len + 1 > (Py_ssize_t)sizeof(small)) {
        tok = PyMem_Malloc((size_t)len + 1);
        if (tok == NULL) return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < len; k++) tok[k] = (char)CH(i + k);
    tok[len] = 0;
    PyObject *val = number_value(m, tok, len, pos);
    if (tok != small) PyMem_Free(tok);
    return val;
}

/* Hold the number s[i:j] that runs to the chunk's end (its DFA state nst) in nbuf:
 * the state number reads on. */
STEP int
number_hold(Machine *m, Scan *sc, Py_ssize_t i, Py_ssize_t j, int nst)
{
    SCAN_TEXT(sc);
    m->nlen = 0;
    if (n_reserve(m, j - i) < 0) return STEP_FAIL;
    for (Py_ssize_t k = i; k < j; k++) m->nbuf[m->nlen++] = (char)CH(k);
    m->nbuf[m->nlen] = 0;
    m->ndfa = nst;
    m->n_pos = base + i;
    m->state = ST_NUMBER;
    return STEP_ON;
}

/* A number that starts at s[i] (c: '-' or a digit): its value when it ends in this
 * chunk, else held (state number); strict: "-Infinity" (allow_nan). */
STEP int
number_start(Machine *m, Scan *sc, Py_UCS4 c, const int lenient)
{
    SCAN_TEXT(sc);
    const Py_ssize_t i = sc->i, pos = base + i;
    Py_ssize_t j = i;
    while (j < n && is_numchar(CH(j))) j++;
    PyObject *val;
    if (j >= n) {
        /* to the chunk's end: held, read on by step_number */
        int nst = N_START;
        for (Py_ssize_t k = i; k < n; k++) {
            nst = ndfa_step(nst, CH(k));
            if (nst == N_STUCK) {
                if (lenient) return hand_at(sc, i);
                fail_msg("Invalid number", pos + (k - i));
                return STEP_FAIL;
            }
        }
        if (!lenient && m->max_tok >= 0 && n - i > m->max_tok) {
            raise_at(PyUnicode_FromFormat("number longer than max_token_chars=%zd", m->max_tok), pos, 1);
            return STEP_FAIL;
        }
        if (number_hold(m, sc, i, n, nst) < 0) return STEP_FAIL;
        sc->i = n;
        return STEP_ON;
    }
    if (lenient) {
        int nst = N_START;
        for (Py_ssize_t k = i; k < j && nst != N_STUCK; k++) nst = ndfa_step(nst, CH(k));
        Py_UCS4 d = CH(j);
        if (j - i == 1 && c == '-' && d == 'I') return hand_at(sc, i);
        if (m->k_token && d == '/' && j + 1 >= n) {
            /* "1/3" or a comment after 1: the next character says */
            if (nst == N_STUCK) return hand_at(sc, i);
            if (number_hold(m, sc, i, j, nst) < 0) return STEP_FAIL;
            if (set_carry(m, sc->s, j, n) < 0) return STEP_FAIL;
            sc->i = n;
            return STEP_ON;
        }
        if (nst == N_STUCK || !ndfa_accepts(nst)) return hand_at(sc, i);
        if (m->k_token && (!number_end(d) || (d == '/' && CH(j + 1) != '/' && CH(j + 1) != '*')))
            return hand_at(sc, i);
    } else {
        if (m->max_tok >= 0 && j - i > m->max_tok) {
            raise_at(PyUnicode_FromFormat("number longer than max_token_chars=%zd", m->max_tok), pos, 1);
            return STEP_FAIL;
        }
        if (j - i == 1 && c == '-' && m->allow_nan && CH(j) == 'I') {
            static const char word[] = "-Infinity";
            Py_ssize_t k = 0;
            while (k < 9 && i + k < n && CH(i + k) == (Py_UCS4)word[k]) k++;
            if (k == 9) {
                val = PyFloat_FromDouble(-Py_HUGE_VAL);
                if (val == NULL) return STEP_FAIL;
                sc->i = i + 9;
                goto done;
            }
            if (n - i < 9 && i + k == n) {
                if (set_carry(m, sc->s, i, n) < 0) return STEP_FAIL;
                sc->i = n;
                return STEP_ON;
            }
            fail_msg("Invalid literal", pos);
            return STEP_FAIL;
        }
    }
    val = number_token(m, kind, data, i, j, pos);
    if (val == NULL) return STEP_FAIL;
    sc->i = j;
done:;
    int rc = scalar_done(m, val, K_number);
    Py_DECREF(val);
    return rc < 0 ? STEP_FAIL : STEP_ON;
}

/* A literal at s[i] (its word, its value: NULL for NaN and Infinity): its value once
 * read in whole, held back while the chunk ends inside it; 1 when the text is not it
 * (*k: how far it matched). */
STEP int
literal_read(Machine *m, Scan *sc, const char *word, PyObject *lit, PyObject *lkind, Py_ssize_t *k)
{
    SCAN_TEXT(sc);
    const Py_ssize_t i = sc->i;
    Py_ssize_t wl = (Py_ssize_t)strlen(word);
    Py_ssize_t at = 0;
    while (at < wl && i + at < n && CH(i + at) == (Py_UCS4)word[at]) at++;
    *k = at;
    if (at == wl) {
        PyObject *val;
        if (lit == NULL) {
            val = PyFloat_FromDouble(word[0] == 'N' ? Py_NAN : Py_HUGE_VAL);
            if (val == NULL) return STEP_FAIL;
        } else {
            Py_INCREF(lit);
            val = lit;
        }
        sc->i = i + wl;
        int rc = scalar_done(m, val, lkind);
        Py_DECREF(val);
        return rc < 0 ? STEP_FAIL : STEP_ON;
    }
    if (i + at == n) { /* a prefix of the word so far: wait for more */
        if (set_carry(m, sc->s, i, n) < 0) return STEP_FAIL;
        sc->i = n;
        return STEP_ON;
    }
    return 1;
}

/* A value where one may start (value, first item, item after a comma), at c = s[i]
 * (not a blank): a string, a container, the closer of an empty array, a number, a
 * literal; lenient: single quotes, a trailing comma, an unquoted token, a comment. */
STEP int
step_value(Machine *m, Scan *sc, Py_UCS4 c, const int lenient)
{
    SCAN_TEXT(sc);
    const int st = m->state;
    const Py_ssize_t i = sc->i, pos = base + i;
    if (lenient && c == '\'' && m->k_single) {
        if (report(m, R_single, pos, M_single_string) < 0) return STEP_FAIL;
        sc->fast_end = -1;
        m->ctrl_seen = 0;
        m->quote = '\'';
        string_open(m, pos, 0);
        sc->i = i + 1;
        return STEP_ON;
    }
    if (c == '"') {
        if (lenient) {
            sc->fast_end = -1;
            m->ctrl_seen = 0;
            m->quote = '"';
            if (m->k_mquote) {
                /* as the Python machine's fast path: a string read in one piece
                   whose quote closes it is not cut at a comma or a closer */
                Py_ssize_t q = prescan(kind, data, i + 1, n);
                if (q >= 0) {
                    int v = fast_verdict(kind, data, n, q + 1);
                    if (v == V_CLOSE)
                        sc->fast_end = q;
                    else if (v == V_ASK)
                        q = -2;
                }
                if (q == -2) {
                    PyObject *stack = top_list(m);
                    if (stack == NULL) return STEP_FAIL;
                    PyObject *r = PyObject_CallFunction(H_string_fast, "OnO", sc->s, i, stack);
                    Py_DECREF(stack);
                    if (r == NULL) return STEP_FAIL;
                    Py_ssize_t e = PyLong_AsSsize_t(r);
                    Py_DECREF(r);
                    if (e == -1 && PyErr_Occurred()) return STEP_FAIL;
                    if (e > 0) sc->fast_end = e - 1;
                }
            }
        }
        string_open(m, pos, 0);
        sc->i = i + 1;
        return STEP_ON;
    }
    if (c == '{' || c == '[') {
        if (m->depth >= m->max_depth) {
            if (lenient) return hand_at(sc, i);
            raise_at(PyUnicode_FromFormat("nesting deeper than max_depth=%zd", m->max_depth), pos, 1);
            return STEP_FAIL;
        }
        if (open_container(m, c) < 0) return STEP_FAIL;
        sc->i = i + 1;
        return STEP_ON;
    }
    if (c == ']' && st != ST_VALUE) {
        if (st == ST_ELEM_FIRST || (lenient && m->k_trailing_comma)) {
            if (lenient && st == ST_ELEM && report(m, R_trailing_comma, pos, M_trailing_comma) < 0)
                return STEP_FAIL;
            sc->i = i + 1;
            return close_container(m) < 0 ? STEP_FAIL : STEP_ON;
        }
        if (lenient) return hand_at(sc, i);
        fail_msg("Trailing comma before ']'", pos);
        return STEP_FAIL;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number_start(m, sc, c, lenient);
    PyObject *lit = NULL, *lkind = NULL;
    Py_ssize_t k = 0;
    if (lenient) {
        if (m->k_token) {
            if (m->depth > 0 && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$')) {
                /* "New York", "TRUE", "None": held back until the token ends */
                Py_CLEAR(m->ubuf);
                m->u_pos = pos;
                m->state = ST_UVAL;
                return STEP_ON;
            }
            if (c != '/' && c != '#') return hand_at(sc, i);
        }
        if (c == 't' || c == 'f' || c == 'n') {
            const char *word = literal_word(m, c, &lit, &lkind);
            int rc = literal_read(m, sc, word, lit, lkind, &k);
            if (rc <= 0) return rc;
        }
        return comment_or_hand(m, sc, c);
    }
    const char *word = literal_word(m, c, &lit, &lkind);
    if (word != NULL) {
        int rc = literal_read(m, sc, word, lit, lkind, &k);
        if (rc <= 0) return rc;
    }
    fail_msg("Expecting value", pos + k);
    return STEP_FAIL;
}

/* A key where one may start (first key, key after a comma), at c = s[i] (not a
 * blank): a string, the closer of an empty object; lenient: single quotes, a trailing
 * comma, an unquoted key, a comment. */
STEP int
step_key(Machine *m, Scan *sc, Py_UCS4 c, const int lenient)
{
    const int st = m->state;
    const Py_ssize_t i = sc->i, pos = sc->base + i;
    if (c == '"' || (lenient && c == '\'' && m->k_single)) {
        if (lenient) {
            if (c == '\'' && report(m, R_single, pos, M_single_key) < 0) return STEP_FAIL;
            m->ctrl_seen = 0;
            m->quote = c;
        }
        string_open(m, pos, 1);
        sc->i = i + 1;
        return STEP_ON;
    }
    if (c == '}') {
        if (st == ST_KEY_FIRST || (lenient && m->k_trailing_comma)) {
            if (lenient && st == ST_KEY && report(m, R_trailing_comma, pos, M_trailing_comma) < 0)
                return STEP_FAIL;
            sc->i = i + 1;
            return close_container(m) < 0 ? STEP_FAIL : STEP_ON;
        }
        if (lenient) return hand_at(sc, i);
        fail_msg("Trailing comma before '}'", pos);
        return STEP_FAIL;
    }
    if (!lenient) {
        fail_msg("Expecting property name enclosed in double quotes", pos);
        return STEP_FAIL;
    }
    if (m->k_unquoted_key &&
        ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$')) {
        if (report(m, R_unquoted_key, pos, M_unquoted_key) < 0) return STEP_FAIL;
        Py_CLEAR(m->ubuf);
        m->state = ST_UKEY;
        return STEP_ON;
    }
    return comment_or_hand(m, sc, c);
}

/* The colon after a key, at c = s[i] (not a blank); lenient: a comment. */
STEP int
step_colon(Machine *m, Scan *sc, Py_UCS4 c, const int lenient)
{
    SCAN_TEXT(sc);
    Py_ssize_t i = sc->i;
    if (c == ':') {
        i++;
        while (i < n && is_ws(CH(i))) i++;
        sc->i = i;
        m->state = ST_VALUE;
        return STEP_ON;
    }
    if (lenient) return comment_or_hand(m, sc, c);
    fail_msg("Expecting ':' delimiter", base + i);
    return STEP_FAIL;
}

/* After a value in a container, at c = s[i] (not a blank): a comma, the container's
 * closer; lenient: a comment, a missing comma before the next member. */
STEP int
step_after_value(Machine *m, Scan *sc, Py_UCS4 c, const int lenient)
{
    SCAN_TEXT(sc);
    Py_ssize_t i = sc->i;
    Frame *f = &m->stack[m->depth - 1];
    if (c == ',') {
        i++;
        while (i < n && is_ws(CH(i))) i++;
        sc->i = i;
        m->state = f->is_dict ? ST_KEY : ST_ELEM;
        return STEP_ON;
    }
    if ((c == ']' && !f->is_dict) || (c == '}' && f->is_dict)) {
        sc->i = i + 1;
        return close_container(m) < 0 ? STEP_FAIL : STEP_ON;
    }
    if (!lenient) {
        fail_msg(c != ']' && c != '}' ? "Expecting ',' delimiter" : "Mismatched closer", base + i);
        return STEP_FAIL;
    }
    if ((c == '/' || c == '#') && m->k_comment) return comment_or_hand(m, sc, c);
    if (m->k_missing_comma &&
        (c == '"' || c == '-' || (c >= '0' && c <= '9') || c == '[' || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
         (c == '{' && !(m->k_closer && f->is_dict && m->depth > 1 && !m->stack[m->depth - 2].is_dict)))) {
        /* the next member or item, its comma missing */
        if (report(m, R_missing_comma, base + i, M_missing_comma) < 0) return STEP_FAIL;
        m->state = f->is_dict ? ST_KEY : ST_ELEM;
        return STEP_ON;
    }
    return hand_at(sc, i);
}

/* Inside a comment (lenient, state comment): its end, or on to the next chunk
 * (watching a line comment in a container for a closer and the next member). */
STEP int
step_comment(Machine *m, Scan *sc)
{
    SCAN_TEXT(sc);
    Py_ssize_t i = sc->i;
    int block = m->c_block;
    Py_ssize_t k = i;
    for (; k < n; k++) {
        Py_UCS4 e = CH(k);
        if (block ? (e == '*' && k + 1 < n && CH(k + 1) == '/') : e == '\n') break;
    }
    if (k < n) {
        sc->i = k + (block ? 2 : 1);
        m->state = m->c_ret;
        m->c_closer = 0;
        Py_CLEAR(m->c_tail);
        return STEP_ON;
    }
    if (block) {
        if (n - 1 >= i && CH(n - 1) == '*' && set_carry(m, sc->s, n - 1, n) < 0) return STEP_FAIL;
    } else if (m->depth > 0 && !m->c_closer) {
        PyObject *rest = PyUnicode_Substring(sc->s, i, n);
        if (rest == NULL) return STEP_FAIL;
        PyObject *seen = m->c_tail != NULL ? PyUnicode_Concat(m->c_tail, rest) : rest;
        if (m->c_tail != NULL) Py_DECREF(rest);
        if (seen == NULL) return STEP_FAIL;
        m->c_closer = comment_member(seen);
        Py_ssize_t sl = PyUnicode_GET_LENGTH(seen);
        Py_XSETREF(m->c_tail, PyUnicode_Substring(seen, sl > 40 ? sl - 40 : 0, sl));
        Py_DECREF(seen);
        if (m->c_tail == NULL) return STEP_FAIL;
    }
    sc->i = n;
    return STEP_ON;
}

/* Append s[i:j] to the in-flight unquoted token. */
static int
ubuf_add(Machine *m, PyObject *s, Py_ssize_t i, Py_ssize_t j)
{
    if (j <= i) return 0;
    PyObject *part = PyUnicode_Substring(s, i, j);
    if (part == NULL) return -1;
    if (m->ubuf == NULL) {
        m->ubuf = part;
        return 0;
    }
    PyUnicode_Append(&m->ubuf, part);
    Py_DECREF(part);
    return m->ubuf == NULL ? -1 : 0;
}

/* An unquoted key (state ukey) or value token (state uval), lenient: its characters
 * in this chunk, and the key or the value once a character ends it. */
STEP int
step_token(Machine *m, Scan *sc, Py_UCS4 c)
{
    SCAN_TEXT(sc);
    Py_ssize_t i = sc->i;
    Py_ssize_t j = i;
    if (m->state == ST_UKEY) {
        while (j < n && ident_char(CH(j))) j++;
        if (ubuf_add(m, sc->s, i, j) < 0) return STEP_FAIL;
        sc->i = i = j;
        if (i >= n) return STEP_ON;
        PyObject *k = m->ubuf != NULL ? m->ubuf : S_empty;
        Py_INCREF(k);
        Py_XSETREF(m->key, k);
        Py_CLEAR(m->ubuf);
        m->state = ST_COLON;
        if (CH(i) == '"' && m->k_mquote) {
            /* '{a": 1}': the quote glued to the key closes it */
            PyObject *g = PyObject_CallFunction(H_glued_quote, "OOnO", m->repairs, m->events_on ? m->events : Py_None,
                                                base + i, K_key_word);
            if (g == NULL) return STEP_FAIL;
            Py_DECREF(g);
            sc->i = i + 1;
        }
        return STEP_ON;
    }
    /* ST_UVAL */
    if (c == '/') return hand_at(sc, i);
    while (j < n) {
        Py_UCS4 d = CH(j);
        if (word_stop(d) || (m->k_space && is_uspace(d))) break;
        j++;
    }
    if (ubuf_add(m, sc->s, i, j) < 0) return STEP_FAIL;
    sc->i = i = j;
    if (i >= n) return STEP_ON;
    Py_UCS4 d = CH(i);
    if (d == '/') return STEP_ON;
    if (d == ' ' || d == '\t' || (m->k_space && is_uspace(d)) || m->ubuf == NULL) return hand_at(sc, i);
    Py_ssize_t next; /* (a local: the scan's state never escapes to a call) */
    if (token_done(m, sc->s, i, base, &next) < 0) return STEP_FAIL;
    sc->i = next;
    return STEP_ON;
}

/* The chunk boundary: an in-flight string value shows what it read (its slot set, its
 * StringDelta), and release_items lets the ended items go. */
STEP int
step_boundary(Machine *m, PyObject *s)
{
    if (m->state == ST_STRING) {
        m->s_first = 0;
        if (!m->is_key) {
            if (!m->s_attached && s_attach(m) < 0) return -1;
            if (slot_set(m, m->sbuf == NULL ? S_empty : m->sbuf) < 0) return -1;
            Py_ssize_t len = s_len(m);
            if (m->events_on && len > m->d_start) {
                PyObject *d = delta_text(m->sbuf, m->d_start, len, s);
                int rc = d == NULL ? -1 : emit(m, H_StringDelta, m->s_path, d, NULL);
                Py_XDECREF(d);
                if (rc < 0) return -1;
                m->d_start = len;
            }
        }
    }
    return release_ended(m);
}

/* Read s (stolen: what was held back and the chunk) from s[i] to its end; lenient:
 * hand over where a step says, and read on where the Python machine gives back. */
STEP int
scan(Machine *m, PyObject *s, Py_ssize_t i, const int lenient)
{
    Scan sc;
    sc.s = s;
    sc.i = i;
restart:
    sc.kind = PyUnicode_KIND(sc.s);
    sc.data = PyUnicode_DATA(sc.s);
    sc.n = PyUnicode_GET_LENGTH(sc.s);
    sc.base = m->base = m->pos - sc.n; /* s ends where the input read so far ends */
    sc.hand = 0;
    sc.fast_end = -1;
    if (lenient && m->state == ST_PREAMBLE) {
        /* step: preamble */
        /* (not in C: the Python machine skips it, skip_preamble, then gives back) */
        sc.hand = sc.i;
        goto handover;
    }
    {
        SCAN_TEXT(&sc);
        while (sc.i < n) {
            const int st = m->state;
            int rc;
            if (st == ST_STRING) {
                rc = step_string(m, &sc, lenient);
            } else {
                Py_UCS4 c = CH(sc.i);
                if (st == ST_END) {
                    rc = step_after_root(m, &sc, c, lenient);
                } else if (st == ST_NUMBER) {
                    rc = step_number(m, &sc, c, lenient);
                } else if (lenient && st == ST_COMMENT) {
                    rc = step_comment(m, &sc);
                } else if (lenient && (st == ST_UKEY || st == ST_UVAL)) {
                    rc = step_token(m, &sc, c);
                } else if (is_ws(c)) {
                    Py_ssize_t k = sc.i + 1;
                    while (k < n && is_ws(CH(k))) k++;
                    sc.i = k;
                    continue;
                } else if (st == ST_AFTER) {
                    rc = step_after_value(m, &sc, c, lenient);
                } else if (st <= ST_ELEM) {
                    rc = step_value(m, &sc, c, lenient);
                } else if (st == ST_KEY_FIRST || st == ST_KEY) {
                    rc = step_key(m, &sc, c, lenient);
                } else {
                    rc = step_colon(m, &sc, c, lenient);
                }
            }
            if (rc != STEP_ON) {
                if (rc == STEP_FAIL) goto error;
                goto handover;
            }
        }
    }
    if (step_boundary(m, sc.s) < 0) goto error;
    Py_DECREF(sc.s);
    return 0;

handover:
    if (lenient) {
        PyObject *back;
        if (handover(m, sc.s, sc.hand, sc.base, 0, &back) < 0) goto error;
        if (back == Py_None) {
            Py_DECREF(back);
            Py_DECREF(sc.s);
            return 0;
        }
        /* given back at once: inside this chunk (read on from there), or at its end */
        if (take_back(m, back) < 0) {
            Py_DECREF(back);
            goto error;
        }
        PyObject *again = GB(back, s);
        if (again == Py_None || !PyUnicode_CheckExact(again)) {
            Py_DECREF(back);
            Py_DECREF(sc.s);
            return 0;
        }
        sc.i = PyLong_AsSsize_t(GB(back, i));
        Py_INCREF(again);
        Py_SETREF(sc.s, again);
        Py_DECREF(back);
        if (sc.i == -1 && PyErr_Occurred()) goto error;
        m->back_pos = m->pos - PyUnicode_GET_LENGTH(sc.s) + sc.i;
        goto restart;
    }
error:
    Py_DECREF(sc.s);
    return -1;
}
#undef CH
#undef SCAN_TEXT

/* Run one chunk through the machine (strict JSON). */
static int
run(Machine *m, PyObject *chunk)
{
    PyObject *s = step_setup(m, chunk, 0);
    if (s == NULL) return -1;
    return scan(m, s, 0, 0);
}

/* Read s (stolen: what was held back and the chunk) from s[i] to its end, lenient. */
static int
scan_lenient(Machine *m, PyObject *s, Py_ssize_t i)
{
    return scan(m, s, i, 1);
}

/* Run one chunk through the lenient machine. */
static int
run_lenient(Machine *m, PyObject *chunk)
{
    PyObject *s = step_setup(m, chunk, 1);
    if (s == NULL) return -1;
    return scan_lenient(m, s, 0);
}

/* End of input (finish): commit a complete number; a string stays as it is (a lenient
 * stream not complete yet hands the end over: finish_lenient). */
static int
step_end(Machine *m)
{
    if (m->state == ST_STRING && !m->is_key && m->s_attached) {
        if (slot_set(m, m->sbuf == NULL ? S_empty : m->sbuf) < 0) return -1;
    } else if (m->state == ST_NUMBER && ndfa_accepts(m->ndfa)) {
        PyObject *val = number_value(m, m->nbuf, m->nlen, m->n_pos);
        if (val == NULL) return -1;
        int rc = scalar_done(m, val, K_number);
        Py_DECREF(val);
        if (rc < 0) return -1;
    }
    return release_ended(m);
}

/* ------------------------------------------------------------------ failing */

static void
raise_error(Machine *m)
{
    PyErr_SetObject((PyObject *)Py_TYPE(m->error), m->error);
}

/* The machine raised: keep a MalformedJSON as the parser's error (with the last good
 * snapshot as .partial) and re-raise it. from_machine: raised inside the machine, so
 * an in-flight string value shows what it read so far. */
static void
fail(Machine *m, int from_machine)
{
    if (!PyErr_ExceptionMatches(H_MalformedJSON)) {
        m->dead = 1;
        if (m->py && PyErr_ExceptionMatches(PyExc_RuntimeError)) {
            /* handed over: the Python machine's generator turned a hook's StopIteration
             * into a RuntimeError (PEP 479); the hook's own exception goes on, as the
             * reference's feed() lets it (JsonStream._stopped) */
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            PyErr_NormalizeException(&type, &value, &tb);
            PyObject *cause = value != NULL ? PyException_GetCause(value) : NULL;
            if (cause != NULL && Py_IS_TYPE(cause, (PyTypeObject *)PyExc_StopIteration)) {
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(tb);
                PyException_SetContext(cause, NULL);
                PyErr_SetObject(PyExc_StopIteration, cause);
                Py_DECREF(cause);
            } else {
                Py_XDECREF(cause);
                PyErr_Restore(type, value, tb);
            }
        }
        return;
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (from_machine && m->state == ST_STRING && !m->is_key) {
        if (!m->s_attached && s_attach(m) < 0) PyErr_Clear();
        if (slot_set(m, m->sbuf == NULL ? S_empty : m->sbuf) < 0) PyErr_Clear();
    }
    PyObject *partial = PyObject_GetAttrString(value, "partial");
    if (partial == NULL) {
        PyErr_Clear();
    } else {
        if (partial == H_UNSET) {
            PyObject *copy = PyObject_CallOneArg(H_deep_copy, m->root);
            if (copy == NULL || PyObject_SetAttrString(value, "partial", copy) < 0) PyErr_Clear();
            Py_XDECREF(copy);
        }
        Py_DECREF(partial);
    }
    Py_XSETREF(m->error, value);
    Py_INCREF(value);
    PyErr_Restore(type, value, tb);
}

static int
run_checked(Machine *m, PyObject *text)
{
    m->pos += PyUnicode_GET_LENGTH(text);
    m->busy = 1;
    int rc = m->py ? run_py(m, text) : m->lenient ? run_lenient(m, text) : run(m, text);
    if (rc < 0) fail(m, 1);
    m->busy = 0;
    return rc;
}

/* Refuse to run the machine from inside itself (Python code it calls: a parse hook,
 * the error helpers, a finalizer the garbage collector runs), as a generator does. */
static int
check_idle(Machine *m)
{
    if (m->busy) {
        PyErr_SetString(PyExc_ValueError, "JsonStream is already running: a parse hook called back into it, "
                                          "or another thread uses it (a parser is not shared between threads)");
        return -1;
    }
    return 0;
}

static int
fail_new(Machine *m, PyObject *cls, PyObject *msg, Py_ssize_t pos)
{
    if (msg == NULL) return -1;
    PyObject *exc = PyObject_CallFunction(cls, "Nn", msg, pos);
    if (exc == NULL) return -1;
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
    fail(m, 0);
    return -1;
}

/* ------------------------------------------------------------------ bytes input */

/* Decode bytes like codecs' incremental "utf-8-sig" decoder; on invalid UTF-8, parse
 * the valid text before the bad byte and fail at its character offset. Returns a new
 * str, or NULL with an exception set. */
static PyObject *
decode_bytes(Machine *m, PyObject *chunk)
{
    PyObject *raw = PyBytes_FromObject(chunk);
    if (raw == NULL) return NULL;
    Py_ssize_t rl = PyBytes_GET_SIZE(raw);
    Py_ssize_t total = m->ulen + rl;
    unsigned char *buf = PyMem_Malloc((size_t)total + 1);
    if (buf == NULL) {
        Py_DECREF(raw);
        return PyErr_NoMemory();
    }
    memcpy(buf, m->ub, (size_t)m->ulen);
    memcpy(buf + m->ulen, PyBytes_AS_STRING(raw), (size_t)rl);
    Py_DECREF(raw);
    const unsigned char *p = buf;
    Py_ssize_t len = total;
    Py_ssize_t skipped = 0;
    static const unsigned char bom[3] = {0xEF, 0xBB, 0xBF};
    if (m->bom_first) {
        if (len < 3) {
            if (memcmp(p, bom, (size_t)len) == 0) { /* not enough data to decide */
                memcpy(m->ub, p, (size_t)len);
                m->ulen = len;
                PyMem_Free(buf);
                return PyUnicode_New(0, 0);
            }
            m->bom_first = 0;
        } else {
            m->bom_first = 0;
            if (memcmp(p, bom, 3) == 0) {
                p += 3;
                len -= 3;
                skipped = 3;
            }
        }
    }
    (void)skipped;
    Py_ssize_t consumed = 0;
    PyObject *text = PyUnicode_DecodeUTF8Stateful((const char *)p, len, "strict", &consumed);
    if (text != NULL) {
        m->ulen = len - consumed;
        memcpy(m->ub, p + consumed, (size_t)m->ulen);
        PyMem_Free(buf);
        return text;
    }
    if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
        PyMem_Free(buf);
        return NULL;
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    Py_ssize_t start = 0;
    PyObject *reason = NULL;
    if (PyUnicodeDecodeError_GetStart(value, &start) < 0 || (reason = PyUnicodeDecodeError_GetReason(value)) == NULL) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        PyMem_Free(buf);
        return NULL;
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    PyObject *good = PyUnicode_DecodeUTF8((const char *)p, start, "strict");
    PyMem_Free(buf);
    m->ulen = 0;
    if (good == NULL) {
        Py_DECREF(reason);
        return NULL;
    }
    if (m->pos == 0 && PyUnicode_GET_LENGTH(good) > 0 && PyUnicode_READ_CHAR(good, 0) == 0xFEFF) {
        Py_SETREF(good, PyUnicode_Substring(good, 1, PyUnicode_GET_LENGTH(good)));
        if (good == NULL) {
            Py_DECREF(reason);
            return NULL;
        }
    }
    if (PyUnicode_GET_LENGTH(good) > 0 && run_checked(m, good) < 0) {
        Py_DECREF(good);
        Py_DECREF(reason);
        return NULL;
    }
    Py_DECREF(good);
    fail_new(m, H_MalformedJSON, PyUnicode_FromFormat("invalid UTF-8 (%U)", reason), m->pos);
    Py_DECREF(reason);
    return NULL;
}

/* ------------------------------------------------------------------ the type's methods */

static int
check_ready(Machine *m)
{
    if (!m->ready) {
        PyErr_SetString(PyExc_RuntimeError, "JsonStream is not initialised");
        return -1;
    }
    return 0;
}

/* Ready, and the machine still there: a parse hook that raised (not a MalformedJSON)
 * stops it, and every later feed or finish says so (errors.HOOK_FAILED); what it made
 * (the value, the events, the repairs) stays readable, as after a MalformedJSON. */
static int
check_alive(Machine *m)
{
    if (check_ready(m) < 0) return -1;
    if (m->dead) {
        PyErr_SetString(PyExc_RuntimeError, "JsonStream stopped after an error in a parse hook");
        return -1;
    }
    return 0;
}

static PyObject *
js_feed(PyObject *self, PyObject *chunk)
{
    Machine *m = MS(self);
    if (m->mode == 1 && PyUnicode_CheckExact(chunk) && m->max_doc < 0 && m->error == NULL &&
        !m->finished && !m->dead && !m->busy) {
        /* the common case, kept short */
        if (run_checked(m, chunk) < 0) return NULL;
        Py_INCREF(m->root);
        return m->root;
    }
    if (check_alive(m) < 0 || check_idle(m) < 0) return NULL;
    if (m->error != NULL) {
        raise_error(m);
        return NULL;
    }
    if (m->finished) {
        PyErr_SetString(PyExc_RuntimeError, "feed() after finish()");
        return NULL;
    }
    PyObject *text;
    if (PyUnicode_CheckExact(chunk)) {
        if (m->mode == 2) {
            PyErr_SetString(PyExc_TypeError, "cannot mix str and bytes chunks in one stream");
            return NULL;
        }
        m->mode = 1;
        Py_INCREF(chunk);
        text = chunk;
    } else if (PyBytes_Check(chunk) || PyByteArray_Check(chunk) || PyMemoryView_Check(chunk)) {
        if (m->mode == 1) {
            PyErr_SetString(PyExc_TypeError, "cannot mix str and bytes chunks in one stream");
            return NULL;
        }
        m->mode = 2;
        text = decode_bytes(m, chunk);
        if (text == NULL) return NULL;
    } else {
        PyErr_Format(PyExc_TypeError, "feed() takes str or bytes, not %s", Py_TYPE(chunk)->tp_name);
        return NULL;
    }
    Py_ssize_t tl = PyUnicode_GET_LENGTH(text);
    if (tl) {
        if (m->max_doc >= 0 && m->pos + tl > m->max_doc) {
            Py_ssize_t keep = m->max_doc - m->pos;
            if (keep > 0) {
                PyObject *head = PyUnicode_Substring(text, 0, keep);
                if (head == NULL || run_checked(m, head) < 0) {
                    Py_XDECREF(head);
                    Py_DECREF(text);
                    return NULL;
                }
                Py_DECREF(head);
            }
            Py_DECREF(text);
            fail_new(m, H_LimitExceeded,
                     PyUnicode_FromFormat("document longer than max_document_chars=%zd", m->max_doc), m->max_doc);
            return NULL;
        }
        if (run_checked(m, text) < 0) {
            Py_DECREF(text);
            return NULL;
        }
    }
    Py_DECREF(text);
    Py_INCREF(m->root);
    return m->root;
}

static PyObject *
js_finish(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    Machine *m = MS(self);
    if (check_alive(m) < 0 || check_idle(m) < 0) return NULL;
    if (m->error != NULL) {
        raise_error(m);
        return NULL;
    }
    if (!m->finished) {
        m->ulen = 0; /* a character cut off at the end: dropped like any truncation */
        m->finished = 1;
        m->busy = 1;
        int rc = m->py                                                     ? run_py(m, Py_None)
                 : m->lenient && (m->state != ST_END || m->carry != NULL) ? finish_lenient(m)
                                                                          : step_end(m);
        if (rc < 0) fail(m, 1);
        m->busy = 0;
        if (rc < 0) return NULL;
    }
    Py_INCREF(m->root);
    return m->root;
}

static PyObject *
need_events(Machine *m)
{
    if (m->events == NULL) {
        PyErr_SetString(PyExc_ValueError,
                        "path events are off: create the parser with JsonStream(events=True)");
        return NULL;
    }
    return m->events;
}

/* Take back what the consumer let go of since the last take(): when the list handed
 * over then has no other reference, its events that have none either are emptied and
 * kept for emit() to fill again (as zip() reuses its result tuple), and the list is
 * kept to collect the next events in.  Saves an allocation and a deallocation of an
 * event object, and of a list, per feed.  Nothing else can see an object whose only
 * reference we hold, so reusing it changes no value anyone holds. */
static void
recycle(Machine *m)
{
    PyObject *l = m->given;
    if (l == NULL) return;
    m->given = NULL;
    if (Py_REFCNT(l) != 1 || !PyList_CheckExact(l) || !events_plain ||
        ((PyListObject *)l)->allocated > SPARE_MAX_ITEMS) {
        Py_DECREF(l);
        return;
    }
    /* l is ours alone: move its items out one by one, from the end */
    Py_ssize_t n;
    while ((n = PyList_GET_SIZE(l)) > 0) {
        PyObject *ev = PyList_GET_ITEM(l, n - 1);
        Py_SET_SIZE(l, n - 1);
        int pool = pool_of((PyObject *)Py_TYPE(ev));
        if (pool < 0 || Py_REFCNT(ev) != 1 || Py_SIZE(ev) != 2 || m->npool[pool] >= EV_POOL) {
            Py_DECREF(ev);
            continue;
        }
        PyObject *a = PyTuple_GET_ITEM(ev, 0), *b = PyTuple_GET_ITEM(ev, 1);
        PyTuple_SET_ITEM(ev, 0, NULL);
        PyTuple_SET_ITEM(ev, 1, NULL);
        if (PyObject_GC_IsTracked(ev)) PyObject_GC_UnTrack(ev);
        m->pool[pool][m->npool[pool]++] = ev;
        /* last: releasing a value may run code (a parse hook's object), which finds the
         * pool and this parser in a consistent state */
        Py_XDECREF(a);
        Py_XDECREF(b);
    }
    if (m->spare == NULL)
        m->spare = l;
    else
        Py_DECREF(l);
}

/* Hand the collected events over and start a new list (O(1), no copy). */
static PyObject *
take(Machine *m)
{
    if (m->py) {
        /* the Python machine holds this list: hand over a copy and empty it */
        Py_ssize_t len = PyList_GET_SIZE(m->events);
        PyObject *out = PyList_GetSlice(m->events, 0, len);
        if (out == NULL || PyList_SetSlice(m->events, 0, len, NULL) < 0) {
            Py_XDECREF(out);
            return NULL;
        }
        return out;
    }
    PyObject *fresh = m->spare;
    m->spare = NULL;
    if (fresh == NULL && (fresh = PyList_New(0)) == NULL) return NULL;
    PyObject *out = m->events;
    m->events = fresh;
    /* after the swap: releasing a value may run code that feeds this parser again,
     * which then collects and takes its own events only */
    recycle(m);
    Py_INCREF(out);
    Py_XSETREF(m->given, out); /* NULL after recycle(), unless such code took events */
    return out;
}

static PyObject *
js_feed_events(PyObject *self, PyObject *chunk)
{
    Machine *m = MS(self);
    if (check_ready(m) < 0 || need_events(m) == NULL) return NULL;
    PyObject *r = js_feed(self, chunk);
    if (r == NULL) return NULL;
    Py_DECREF(r);
    if (PyList_GET_SIZE(m->events) == 0) return PyList_New(0);
    return take(m);
}

static PyObject *
js_finish_events(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    Machine *m = MS(self);
    if (check_ready(m) < 0 || need_events(m) == NULL) return NULL;
    PyObject *r = js_finish(self, NULL);
    if (r == NULL) return NULL;
    Py_DECREF(r);
    return take(m);
}

static PyObject *
js_take_events(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    Machine *m = MS(self);
    if (check_ready(m) < 0 || need_events(m) == NULL) return NULL;
    return take(m);
}

static PyObject *
js_snapshot(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    Machine *m = MS(self);
    if (check_ready(m) < 0) return NULL;
    return PyObject_CallOneArg(H_deep_copy, m->root);
}

static PyObject *
js_repr(PyObject *self)
{
    Machine *m = MS(self);
    if (!m->ready) return PyUnicode_FromString("<JsonStream uninitialised>");
    const char *state = m->complete ? "complete" : m->finished ? "finished" : "streaming";
    PyObject *r = PyObject_Repr(m->root);
    if (r == NULL) return NULL;
    if (PyUnicode_GET_LENGTH(r) > 60) Py_SETREF(r, PyUnicode_Substring(r, 0, 60));
    if (r == NULL) return NULL;
    PyObject *out = PyUnicode_FromFormat("<JsonStream %s pos=%zd value=%U>", state, m->pos, r);
    Py_DECREF(r);
    return out;
}

static PyObject *
get_value(PyObject *self, void *Py_UNUSED(c))
{
    Machine *m = MS(self);
    if (check_ready(m) < 0) return NULL;
    Py_INCREF(m->root);
    return m->root;
}

static PyObject *
get_complete(PyObject *self, void *Py_UNUSED(c))
{
    return PyBool_FromLong(MS(self)->complete);
}

static PyObject *
get_finished(PyObject *self, void *Py_UNUSED(c))
{
    return PyBool_FromLong(MS(self)->finished);
}

static PyObject *
get_pos(PyObject *self, void *Py_UNUSED(c))
{
    return PyLong_FromSsize_t(MS(self)->pos);
}

static PyObject *
get_tail(PyObject *self, void *Py_UNUSED(c))
{
    Machine *m = MS(self);
    if (check_ready(m) < 0) return NULL;
    Py_ssize_t k = PyList_GET_SIZE(m->tail);
    if (k == 0) return PyUnicode_New(0, 0);
    if (k > 1) {
        /* in place: the Python machine may hold this list (lenient, handed over) */
        PyObject *joined = PyUnicode_Join(S_empty, m->tail);
        if (joined == NULL) return NULL;
        PyObject *one = PyList_New(1);
        if (one == NULL) {
            Py_DECREF(joined);
            return NULL;
        }
        PyList_SET_ITEM(one, 0, joined);
        int rc = PyList_SetSlice(m->tail, 0, k, one);
        Py_DECREF(one);
        if (rc < 0) return NULL;
    }
    PyObject *t = PyList_GET_ITEM(m->tail, 0);
    Py_INCREF(t);
    return t;
}

static PyObject *
get_repairs(PyObject *self, void *Py_UNUSED(c))
{
    Machine *m = MS(self);
    if (check_ready(m) < 0) return NULL;
    Py_INCREF(m->repairs);
    return m->repairs;
}

/* How many repairs: the kept ones, and those a window (release_items) let go of. */
static PyObject *
get_repair_count(PyObject *self, void *Py_UNUSED(c))
{
    Machine *m = MS(self);
    if (check_ready(m) < 0) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(m->repairs);
    if (PyList_CheckExact(m->repairs)) return PyLong_FromSsize_t(n);
    PyObject *dropped = PyObject_GetAttrString(m->repairs, "dropped");
    PyObject *kept = PyLong_FromSsize_t(n);
    PyObject *count = dropped != NULL && kept != NULL ? PyNumber_Add(dropped, kept) : NULL;
    Py_XDECREF(dropped);
    Py_XDECREF(kept);
    return count;
}

/* ------------------------------------------------------------------ lifecycle */

static void
m_clear(Machine *m)
{
    Py_CLEAR(m->parse_float);
    Py_CLEAR(m->parse_int);
    Py_CLEAR(m->root);
    Py_CLEAR(m->events);
    Py_CLEAR(m->tail);
    Py_CLEAR(m->repairs);
    Py_CLEAR(m->error);
    Py_CLEAR(m->key);
    Py_CLEAR(m->carry);
    Py_CLEAR(m->sbuf);
    Py_CLEAR(m->s_path);
    Py_CLEAR(m->given);
    Py_CLEAR(m->spare);
    Py_CLEAR(m->options);
    Py_CLEAR(m->token_opts);
    Py_CLEAR(m->send);
    Py_CLEAR(m->ubuf);
    Py_CLEAR(m->c_tail);
    for (int t = 0; t < 3; t++) {
        while (m->npool[t] > 0) {
            PyObject *ev = m->pool[t][--m->npool[t]];
            Py_DECREF(ev); /* empty: frees only itself */
        }
    }
    while (m->depth > 0) {
        Frame *f = &m->stack[--m->depth];
        Py_CLEAR(f->cont);
        Py_CLEAR(f->path);
    }
}

static void
m_free_buffers(Machine *m)
{
    PyMem_Free(m->stack);
    m->stack = NULL;
    m->cap = 0;
    PyMem_Free(m->scr);
    m->scr = NULL;
    m->scr_cap = m->scr_len = 0;
    PyMem_Free(m->nbuf);
    m->nbuf = NULL;
    m->ncap = m->nlen = 0;
}

static Py_ssize_t
opt_size(PyObject *v, Py_ssize_t none_value, const char *name, int *err)
{
    if (v == NULL || v == Py_None) return none_value;
    Py_ssize_t r = PyLong_AsSsize_t(v);
    if (r == -1 && PyErr_Occurred()) {
        *err = 1;
        return 0;
    }
    if (r < 0 && none_value < 0) {
        PyErr_Format(PyExc_ValueError, "%s must not be negative", name);
        *err = 1;
    }
    return r;
}

static int
js_init(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"events",          "lenient",         "skip_preamble", "trailing",
                             "allow_inf_nan",   "max_depth",       "max_token_chars",
                             "max_document_chars", "max_int_digits", "parse_float", "parse_int",
                             "release_items",   NULL};
    int events = 0, skip_preamble = 0, allow_nan = 0, release = 0;
    PyObject *lenient = Py_False;
    PyObject *trailing = Py_None, *max_depth = NULL, *max_tok = NULL, *max_doc = NULL, *max_int = NULL;
    PyObject *parse_float = Py_None, *parse_int = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$pOpOpOOOOOOp:JsonStream", kwlist, &events, &lenient,
                                     &skip_preamble, &trailing, &allow_nan, &max_depth, &max_tok, &max_doc,
                                     &max_int, &parse_float, &parse_int, &release))
        return -1;
    if (release && !events) {
        PyErr_SetString(PyExc_ValueError, "release_items=True needs events=True (items leave by their ValueEnd)");
        return -1;
    }
    PyObject *kinds = NULL;
    if (lenient != Py_False) {
        kinds = PyObject_CallOneArg(H_kinds_of, lenient);
        if (kinds == NULL) return -1;
        if (PyObject_Length(kinds) == 0) Py_CLEAR(kinds); /* no kind: strict JSON */
    }
    if ((skip_preamble && kinds == NULL) || (kinds != NULL && max_tok != NULL && max_tok != Py_None)) {
        Py_XDECREF(kinds);
        PyErr_SetString(PyExc_ValueError,
                        "the C machine skips a preamble only in lenient mode, and limits no tokens there");
        return -1;
    }
    int ignore = skip_preamble; /* trailing=None: 'ignore' after a preamble, as the reference */
    if (trailing != Py_None) {
        ignore = 1;
        if (PyUnicode_Check(trailing) && PyUnicode_CompareWithASCIIString(trailing, "error") == 0) {
            ignore = 0;
        } else if (!(PyUnicode_Check(trailing) && PyUnicode_CompareWithASCIIString(trailing, "ignore") == 0)) {
            Py_XDECREF(kinds);
            PyErr_SetString(PyExc_ValueError, "trailing must be 'error' or 'ignore'");
            return -1;
        }
    }
    int err = 0;
    Py_ssize_t depth = max_depth == NULL ? 1000 : opt_size(max_depth, 1000, "max_depth", &err);
    Py_ssize_t tok = opt_size(max_tok, -1, "max_token_chars", &err);
    Py_ssize_t doc = opt_size(max_doc, -1, "max_document_chars", &err);
    Py_ssize_t mint = max_int == NULL ? 4300 : opt_size(max_int, 4300, "max_int_digits", &err);
    if (err || depth < 1) {
        Py_XDECREF(kinds);
        if (!err) PyErr_SetString(PyExc_ValueError, "max_depth must be at least 1");
        return -1;
    }
    Machine *m = MS(self);
    if (check_idle(m) < 0) { /* __init__() from inside the running machine */
        Py_XDECREF(kinds);
        return -1;
    }
    m_clear(m);
    m_free_buffers(m);
    memset(m, 0, sizeof(Machine));
    m->events_on = events;
    m->release = release;
    m->ignore_trailing = ignore;
    m->allow_nan = allow_nan;
    m->max_depth = depth;
    m->max_tok = tok;
    m->max_doc = doc;
    m->max_int = mint;
    m->bom_first = 1;
    if (parse_float != Py_None && parse_float != (PyObject *)&PyFloat_Type) {
        Py_INCREF(parse_float);
        m->parse_float = parse_float;
    }
    if (parse_int != Py_None && parse_int != (PyObject *)&PyLong_Type) {
        Py_INCREF(parse_int);
        m->parse_int = parse_int;
    }
    Py_INCREF(H_UNSET);
    m->root = H_UNSET;
    m->tail = PyList_New(0);
    /* release_items: a window of the last repairs (jsonstream._RepairWindow) */
    m->repairs = release ? PyObject_CallNoArgs(H_repair_window) : PyList_New(0);
    if (m->tail == NULL || m->repairs == NULL) return -1;
    if (events && (m->events = PyList_New(0)) == NULL) {
        Py_XDECREF(kinds);
        return -1;
    }
    if (kinds != NULL) {
        static const char *const inner[] = {"inner_quote"}, *const mquote[] = {"missing_quote"},
                                 *const space[] = {"unicode_space"},
                                 *const token[] = {"unquoted_value", "literal_case", "leading_zeros"};
        static const char *const tcomma[] = {"trailing_comma"}, *const mcomma[] = {"missing_comma"},
                                 *const ukey[] = {"unquoted_key"}, *const closer[] = {"mismatched_closer"},
                                 *const comment[] = {"comment"}, *const single[] = {"single_quotes"},
                                 *const ctrl[] = {"control_char"};
        int *flags[] = {&m->k_inner,          &m->k_mquote,        &m->k_space,         &m->k_token, &m->k_trailing_comma,
                        &m->k_missing_comma, &m->k_unquoted_key, &m->k_closer, &m->k_comment, &m->k_single,
                        &m->k_ctrl};
        const char *const *names[] = {inner, mquote, space, token, tcomma, mcomma, ukey, closer, comment, single, ctrl};
        int counts[] = {1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1};
        for (int f = 0; f < 11; f++) {
            for (int k = 0; k < counts[f]; k++) {
                PyObject *name = PyUnicode_FromString(names[f][k]);
                int has = name == NULL ? -1 : PySequence_Contains(kinds, name);
                Py_XDECREF(name);
                if (has < 0) {
                    Py_DECREF(kinds);
                    return -1;
                }
                if (has) *flags[f] = 1;
            }
        }
        m->lenient = 1;
        m->token_opts = Py_BuildValue("(OOOOn)", kinds, allow_nan ? Py_True : Py_False,
                                      parse_float != Py_None ? parse_float : (PyObject *)&PyFloat_Type,
                                      parse_int != Py_None ? parse_int : (PyObject *)&PyLong_Type, mint);
        m->options = kwds != NULL ? PyDict_Copy(kwds) : PyDict_New();
        Py_DECREF(kinds);
        if (m->token_opts == NULL || m->options == NULL) return -1;
    }
    m->state = skip_preamble ? ST_PREAMBLE : ST_VALUE;
    m->ready = 1;
    return 0;
}

static PyObject *
js_new(PyTypeObject *type, PyObject *Py_UNUSED(args), PyObject *Py_UNUSED(kwds))
{
    return type->tp_alloc(type, 0);
}

static int
js_traverse(PyObject *self, visitproc visit, void *arg)
{
    Machine *m = MS(self);
    Py_VISIT(Py_TYPE(self));
    for (int k = 0; k < n_base_slots; k++) Py_VISIT(*(PyObject **)((char *)self + base_slots[k]));
    Py_VISIT(m->parse_float);
    Py_VISIT(m->parse_int);
    Py_VISIT(m->root);
    Py_VISIT(m->events);
    Py_VISIT(m->tail);
    Py_VISIT(m->repairs);
    Py_VISIT(m->error);
    Py_VISIT(m->key);
    Py_VISIT(m->carry);
    Py_VISIT(m->sbuf);
    Py_VISIT(m->s_path);
    Py_VISIT(m->given);
    Py_VISIT(m->spare);
    Py_VISIT(m->options);
    Py_VISIT(m->token_opts);
    Py_VISIT(m->send);
    Py_VISIT(m->ubuf);
    Py_VISIT(m->c_tail);
    for (Py_ssize_t k = 0; k < m->depth; k++) {
        Py_VISIT(m->stack[k].cont);
        Py_VISIT(m->stack[k].path);
    }
    return 0;
}

static int
js_clear(PyObject *self)
{
    for (int k = 0; k < n_base_slots; k++) Py_CLEAR(*(PyObject **)((char *)self + base_slots[k]));
    Machine *m = MS(self);
    m_clear(m);
    m->ready = 0;
    return 0;
}

static void
js_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    js_clear(self);
    m_free_buffers(MS(self));
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyMethodDef js_methods[] = {
    {"feed", (PyCFunction)js_feed, METH_O, "Consume a chunk and return the live root value (or UNSET)."},
    {"finish", (PyCFunction)js_finish, METH_NOARGS, "Close what is open and return the final value."},
    {"feed_events", (PyCFunction)js_feed_events, METH_O, "Feed a chunk and return its path events."},
    {"finish_events", (PyCFunction)js_finish_events, METH_NOARGS, "finish() and return its path events."},
    {"take_events", (PyCFunction)js_take_events, METH_NOARGS, "Return and forget the collected path events."},
    {"snapshot", (PyCFunction)js_snapshot, METH_NOARGS, "A detached deep copy of the live value."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef js_getset[] = {
    {"value", get_value, NULL, "The live root value, or UNSET.", NULL},
    {"complete", get_complete, NULL, "True once the root value closed on real input.", NULL},
    {"finished", get_finished, NULL, "True once finish() was called.", NULL},
    {"pos", get_pos, NULL, "Characters fed so far.", NULL},
    {"tail", get_tail, NULL, "Text that followed the root value (trailing='ignore').", NULL},
    {"repairs", get_repairs, NULL, "What lenient mode repaired so far, in stream order.", NULL},
    {"repair_count", get_repair_count, NULL, "How many repairs lenient mode made so far.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot js_slots[] = {
    {Py_tp_new, js_new},
    {Py_tp_init, js_init},
    {Py_tp_dealloc, js_dealloc},
    {Py_tp_traverse, js_traverse},
    {Py_tp_clear, js_clear},
    {Py_tp_repr, js_repr},
    {Py_tp_methods, js_methods},
    {Py_tp_getset, js_getset},
    {Py_tp_doc, "JsonStream running on the C machine."},
    {0, NULL},
};

static PyType_Spec js_spec = {
    "unspool.core._speedups.JsonStream", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, js_slots,
};

/* helpers.<name> (a state.Helpers record) into *slot */
static int
grab(PyObject *helpers, const char *name, PyObject **slot)
{
    PyObject *v = PyObject_GetAttrString(helpers, name);
    if (v == NULL) {
        PyErr_Format(PyExc_AttributeError, "make_type: missing helper %s", name);
        return -1;
    }
    Py_XSETREF(*slot, v);
    return 0;
}

/* A tuple of the C names (HANDOVER_FIELDS, GIVEBACK_FIELDS). */
static PyObject *
field_names(const char *const *names, int n)
{
    PyObject *r = PyTuple_New(n);
    if (r == NULL) return NULL;
    for (int k = 0; k < n; k++) {
        PyObject *s = PyUnicode_InternFromString(names[k]);
        if (s == NULL) {
            Py_DECREF(r);
            return NULL;
        }
        PyTuple_SET_ITEM(r, k, s);
    }
    return r;
}

/* Whether record (state.Handover or state.Giveback) is a plain tuple type whose
 * _fields are the C names, in the C order. */
static int
check_record(PyObject *record, const char *const *names, int n)
{
    if (!plain_tuple_type(record)) {
        PyErr_SetString(PyExc_TypeError, "make_type: a hand-over record must be a NamedTuple");
        return -1;
    }
    PyObject *mine = field_names(names, n);
    if (mine == NULL) return -1;
    PyObject *theirs = PyObject_GetAttrString(record, "_fields");
    int same = theirs != NULL ? PyObject_RichCompareBool(mine, theirs, Py_EQ) : -1;
    Py_DECREF(mine);
    Py_XDECREF(theirs);
    if (same == 0)
        PyErr_Format(PyExc_TypeError, "make_type: %s's fields differ from the C machine's",
                     ((PyTypeObject *)record)->tp_name);
    return same == 1 ? 0 : -1;
}

static PyObject *
make_type(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *base, *helpers;
    if (!PyArg_ParseTuple(args, "O!O:make_type", &PyType_Type, &base, &helpers)) return NULL;
    if (stream_type != NULL) {
        Py_INCREF(stream_type);
        return stream_type;
    }
    if (grab(helpers, "UNSET", &H_UNSET) < 0 || grab(helpers, "parse_error", &H_parse_error) < 0 ||
        grab(helpers, "deep_copy", &H_deep_copy) < 0 || grab(helpers, "big_int", &H_big_int) < 0 ||
        grab(helpers, "MalformedJSON", &H_MalformedJSON) < 0 ||
        grab(helpers, "LimitExceeded", &H_LimitExceeded) < 0 ||
        grab(helpers, "ValueStart", &H_ValueStart) < 0 || grab(helpers, "StringDelta", &H_StringDelta) < 0 ||
        grab(helpers, "ValueEnd", &H_ValueEnd) < 0 || grab(helpers, "Skipped", &H_Skipped) < 0 ||
        grab(helpers, "resume", &H_resume) < 0 || grab(helpers, "kinds_of", &H_kinds_of) < 0 ||
        grab(helpers, "close_verdict", &H_close_verdict) < 0 || grab(helpers, "string_cut", &H_string_cut) < 0 ||
        grab(helpers, "string_fast", &H_string_fast) < 0 || grab(helpers, "token", &H_token) < 0 ||
        grab(helpers, "glued_quote", &H_glued_quote) < 0 || grab(helpers, "repair", &H_repair) < 0 ||
        grab(helpers, "repair_window", &H_repair_window) < 0 ||
        grab(helpers, "path_link", &H_path_link) < 0 ||
        grab(helpers, "DeepValueStart", &H_DeepValueStart) < 0 ||
        grab(helpers, "DeepStringDelta", &H_DeepStringDelta) < 0 ||
        grab(helpers, "DeepValueEnd", &H_DeepValueEnd) < 0 || grab(helpers, "Handover", &H_Handover) < 0 ||
        grab(helpers, "Giveback", &H_Giveback) < 0)
        return NULL;
    if (check_record(H_Handover, handover_fields, HO_COUNT) < 0 ||
        check_record(H_Giveback, giveback_fields, GB_COUNT) < 0)
        return NULL;
    {
        PyObject *flat = PyObject_GetAttrString(helpers, "path_flat");
        path_flat = flat != NULL ? PyLong_AsSsize_t(flat) : -1;
        Py_XDECREF(flat);
        if (path_flat < 1 || !PyType_Check(H_path_link) ||
            !PyType_IsSubtype((PyTypeObject *)H_path_link, &PyTuple_Type)) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "make_type: bad path_flat or path_link");
            return NULL;
        }
    }
    events_plain = plain_tuple_type(H_ValueStart) && plain_tuple_type(H_StringDelta) &&
                   plain_tuple_type(H_ValueEnd) && plain_tuple_type(H_Skipped) &&
                   plain_tuple_type(H_DeepValueStart) && plain_tuple_type(H_DeepStringDelta) &&
                   plain_tuple_type(H_DeepValueEnd);
    PyTypeObject *bt = (PyTypeObject *)base;
    n_base_slots = 0;
    for (PyMemberDef *md = bt->tp_members; md != NULL && md->name != NULL; md++) {
        if (md->type == T_OBJECT_EX || md->type == T_OBJECT) {
            if (n_base_slots == MAX_BASE_SLOTS) {
                PyErr_SetString(PyExc_TypeError, "make_type: too many slots in the base");
                return NULL;
            }
            base_slots[n_base_slots++] = md->offset;
            if (strcmp(md->name, "_root") == 0) off_root = md->offset;
            if (strcmp(md->name, "_complete") == 0) off_complete = md->offset;
        }
    }
    state_offset = (bt->tp_basicsize + 15) & ~(Py_ssize_t)15;
    js_spec.basicsize = (int)(state_offset + (Py_ssize_t)sizeof(Machine));
    PyObject *bases = PyTuple_Pack(1, base);
    if (bases == NULL) return NULL;
    stream_type = PyType_FromSpecWithBases(&js_spec, bases);
    Py_DECREF(bases);
    if (stream_type == NULL) return NULL;
    Py_INCREF(stream_type);
    return stream_type;
}

/* max_depth(value, limit): the C twin of snapshot.max_depth, paired by name.  The
 * nesting depth of value (a scalar is 0, [] is 1), counting no further than limit + 1.
 * loads() checks the depth limit on every value the stdlib decoder gives it; walking
 * the containers here costs a small fraction of decoding them.  Only exact dicts and
 * lists count, as in the reference; no Python code runs during the walk, so the
 * borrowed references stay valid. */
typedef struct {
    PyObject *node;
    Py_ssize_t depth;
} DepthItem;

static PyObject *
max_depth(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *value;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "On:max_depth", &value, &limit)) return NULL;
    if (!PyDict_CheckExact(value) && !PyList_CheckExact(value)) return PyLong_FromLong(0);
    Py_ssize_t cap = 64, top = 0, deepest = 1;
    DepthItem *work = PyMem_New(DepthItem, cap);
    if (work == NULL) return PyErr_NoMemory();
    work[top++] = (DepthItem){value, 1};
    while (top > 0) {
        DepthItem item = work[--top];
        if (item.depth > deepest) {
            deepest = item.depth;
            if (deepest > limit) break;
        }
        Py_ssize_t i = 0, n;
        PyObject *key, *child;
        int is_dict = PyDict_CheckExact(item.node);
        n = is_dict ? 0 : PyList_GET_SIZE(item.node);
        for (;;) {
            if (is_dict) {
                if (!PyDict_Next(item.node, &i, &key, &child)) break;
            }
            else {
                if (i >= n) break;
                child = PyList_GET_ITEM(item.node, i);
                i++;
            }
            if (!PyDict_CheckExact(child) && !PyList_CheckExact(child)) continue;
            if (top == cap) {
                if (cap > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)sizeof(DepthItem)) {
                    PyMem_Free(work);
                    return PyErr_NoMemory();
                }
                cap *= 2;
                DepthItem *grown = (DepthItem *)PyMem_Realloc(work, (size_t)cap * sizeof(DepthItem));
                if (grown == NULL) {
                    PyMem_Free(work);
                    return PyErr_NoMemory();
                }
                work = grown;
            }
            work[top++] = (DepthItem){child, item.depth + 1};
        }
    }
    PyMem_Free(work);
    return PyLong_FromSsize_t(deepest);
}

static PyMethodDef module_methods[] = {
    {"make_type", make_type, METH_VARARGS,
     "make_type(JsonStream, helpers) -> the JsonStream subclass that runs the C machine\n"
     "(helpers: a state.Helpers record, read by attribute name)."},
    {"max_depth", max_depth, METH_VARARGS,
     "max_depth(value, limit) -> nesting depth of value, counted no further than limit + 1."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_speedups", "The C machine of unspool's JsonStream.", -1,
    module_methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    K_object = PyUnicode_InternFromString("object");
    K_array = PyUnicode_InternFromString("array");
    K_string = PyUnicode_InternFromString("string");
    K_number = PyUnicode_InternFromString("number");
    K_bool = PyUnicode_InternFromString("bool");
    K_null = PyUnicode_InternFromString("null");
    K_trailing = PyUnicode_InternFromString("trailing");
    A_root = PyUnicode_InternFromString("_root");
    A_complete = PyUnicode_InternFromString("_complete");
    A_send = PyUnicode_InternFromString("_send");
    K_string_word = PyUnicode_InternFromString("string");
    K_key_word = PyUnicode_InternFromString("key");
    R_trailing_comma = PyUnicode_InternFromString("trailing_comma");
    M_trailing_comma = PyUnicode_InternFromString("dropped a trailing comma");
    R_missing_comma = PyUnicode_InternFromString("missing_comma");
    M_missing_comma = PyUnicode_InternFromString("inserted a missing comma");
    R_unquoted_key = PyUnicode_InternFromString("unquoted_key");
    M_unquoted_key = PyUnicode_InternFromString("read an unquoted key");
    R_comment = PyUnicode_InternFromString("comment");
    M_comment = PyUnicode_InternFromString("skipped a comment");
    M_hash_comment = PyUnicode_InternFromString("skipped a # comment");
    R_single = PyUnicode_InternFromString("single_quotes");
    M_single_string = PyUnicode_InternFromString("read a single-quoted string");
    M_single_key = PyUnicode_InternFromString("read a single-quoted key");
    R_control = PyUnicode_InternFromString("control_char");
    M_control = PyUnicode_InternFromString("kept a raw control character in a string");
    if (!R_comment || !M_comment || !M_hash_comment || !R_single || !M_single_string || !M_single_key || !R_control ||
        !M_control)
        return NULL;
    if (!A_root || !A_complete || !A_send || !K_string_word || !K_key_word || !R_trailing_comma ||
        !M_trailing_comma || !R_missing_comma || !M_missing_comma || !R_unquoted_key || !M_unquoted_key)
        return NULL;
    S_line_end = PyUnicode_InternFromString("\n");
    S_block_end = PyUnicode_InternFromString("*/");
    if (!S_line_end || !S_block_end) return NULL;
    S_empty = PyUnicode_New(0, 0);
    T_empty = PyTuple_New(0);
    if (!K_object || !K_array || !K_string || !K_number || !K_bool || !K_null || !K_trailing || !S_empty ||
        !T_empty)
        return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) return NULL;
    /* the hand-over records' field names, as state.py must declare them */
    PyObject *ho = field_names(handover_fields, HO_COUNT), *gb = field_names(giveback_fields, GB_COUNT);
    int bad = ho == NULL || gb == NULL || PyModule_AddObjectRef(module, "HANDOVER_FIELDS", ho) < 0 ||
              PyModule_AddObjectRef(module, "GIVEBACK_FIELDS", gb) < 0;
    Py_XDECREF(ho);
    Py_XDECREF(gb);
    if (bad) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}

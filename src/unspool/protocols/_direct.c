/* The C forms of the protocols' per-chunk fast paths; the Python code beside them stays
 * the reference (tests/protocols/test_interleaved_direct.py, tests/protocols/test_tags_direct.py).
 *
 * TextRun(stops, held, prefixes, find, max_hold, fold, reasoning) is TagParser's text
 * fast path (tags.py, feed()): with nothing held, a str chunk in which no delimiter can
 * begin (none of the characters `stops`, the ones the lexer's `starts` looks for) is one
 * TextDelta (or ReasoningDelta); else, when the lexer finds no delimiter and no signal
 * in held + chunk (`find`), the text up to the longest suffix that is a proper prefix of
 * a delimiter is one, and that suffix is held; in markdown prose (`lines`) a chunk
 * whose only stop characters are newlines is text too, the line state (`line_start`,
 * `indent`, CodeTracker's) followed.  It returns None for any other chunk, having
 * changed nothing.  HeldRun (a delimiter's prefix held back
 * grows), TagRun (an open tag's attributes) and BodyRun (a JSON action body, the core
 * fed here) are its other fast paths, each described above its code.
 *
 * Direct is InterleavedParser's fast path (interleaved.py, feed(): inside the
 * confirmed array, any str chunk).
 *
 * Direct(feed_events, core, chunks, step, tracker, fed, base, keep, trim, item, text,
 * action, quiet) is made when the fast path opens and read back (fed, end, base,
 * item, content_len, text_chars) when it is left.  Calling it with a chunk feeds the
 * core in pieces (cut before each '{' and after each '}', as _feed_array does) and
 * returns
 *   - a list: the chunk's events, the chunk fully handled;
 *   - None: the chunk was not taken (not a str), nothing changed.
 * Path events are handled here, in order, while they are of the plain kinds: text
 * that grows the shown content string (a TextDelta), text of the open params (their
 * ActionArgsDelta at the chunk's end), what the item tracker ignores (a key, a
 * member's own string, values inside a member), the members that only set fields of
 * the open Item (member()) and the plain item boundaries (boundary()).  From the
 * first other event on, the rest of the chunk goes to `step` (the parser's _inside)
 * piece by piece: the item tracker takes it as in Python, and the last piece's call
 * returns the chunk's remaining events and the state to go on with (item, text,
 * action, quiet); when the array closed, it returns a list and the fast path is over.
 * A MalformedJSON from the core propagates, the piece counted as fed (as in Python);
 * `piece` and `pending` (the chunk's events made before it) are kept for the parser.
 *
 * Why in C: this path runs on almost every chunk of a reply, and its Python
 * bookkeeping (counting, keeping the tail, reading the event, making the
 * TextDelta or ActionArgsDelta) cost more than the core's own work; leaving it at
 * each item boundary and key (one chunk in eight at 4 characters) cost half the
 * parser's time, in Python bookkeeping around the item tracker's few real steps.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

static PyObject *StringDelta_t, *TextDelta_t, *ArgsDelta_t, *ReasoningDelta_t; /* configure() */
static PyObject *ValueStart_t, *ValueEnd_t;
static PyObject *text_descr, *id_descr, *index_descr, *partial_descr, *delta_descr;
static PyObject *reasoning_descr;
static PyObject *s_value, *s_take, *s_empty, *s_content, *s_params, *s_parameters;
static PyObject *MISSING, *Item_t; /* interleaved_items._MISSING and Item (configure) */
static PyObject *MalformedJSON_t;   /* the core's error (configure) */
static PyObject *s_tail;
/* the Item fields the fast path reads or sets, and the values it compares or sets */
static PyObject *s_is_object, *s_kind, *s_type_value, *s_buffered, *s_names, *s_content_active,
    *s_content_path, *s_content_value, *s_content_len, *s_type, *s_text, *s_action, *s_none,
    *s_string, *s_object, *s_content_dup, *s_notes, *s__item, *s__repairs, *s_args_key,
    *s_args_open, *s_snaps, *s_event_id, *s_raw;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *feed;      /* the core's feed_events */
    PyObject *core;      /* the core (its value, for the args) */
    PyObject *chunks;    /* list: the text kept, shared with the candidate */
    PyObject *step;      /* the parser's _inside: the item tracker takes a piece */
    PyObject *tracker;   /* the item tracker (its open item and repairs) */
    Py_ssize_t fed;      /* characters fed to the core (array offsets) */
    Py_ssize_t end;      /* array offset of the end of the chunks taken */
    Py_ssize_t base;     /* array offset of chunks[0] */
    Py_ssize_t keep;     /* _KEEP: characters kept when trimming */
    Py_ssize_t trim;     /* _TRIM: trim once this much is kept */
    PyObject *item;      /* the item tracker's open item (an Item), or NULL */
    PyObject *text_path; /* the path of its content string while it is shown, or NULL */
    Py_ssize_t content_len; /* characters of it shown here, not yet in item.content_len */
    Py_ssize_t text_chars;
    PyObject *args_key; /* the open action's params key, or NULL */
    PyObject *snaps;
    PyObject *event_id;
    PyObject *index;
    PyObject *raw;     /* its params text not yet in a delta (the Item's list) */
    int quiet;
    int lenient;       /* the params are not followed (the parser's lenient mode) */
    PyObject *piece;   /* after a JSON error: the piece the core raised on */
    PyObject *pending; /* ... and the events the chunk made before it */
} Direct;

/* A new event of `type` (a slots dataclass) with its fields set through their slot
 * descriptors, as fastevents.py does (its frozen __setattr__ is not for us). */
static PyObject *
new_event(PyObject *type, PyObject **descrs, PyObject **values, int n)
{
    PyObject *ev = PyBaseObject_Type.tp_new((PyTypeObject *)type, s_empty, NULL);
    if (ev == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        descrsetfunc set = Py_TYPE(descrs[i])->tp_descr_set;
        if (set == NULL || set(descrs[i], ev, values[i]) < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "an event field is not settable");
            Py_DECREF(ev);
            return NULL;
        }
    }
    return ev;
}

/* A list holding just `ev` (stolen), or NULL. */
static PyObject *
one(PyObject *ev)
{
    if (ev == NULL)
        return NULL;
    PyObject *out = PyList_New(1);
    if (out == NULL) {
        Py_DECREF(ev);
        return NULL;
    }
    PyList_SET_ITEM(out, 0, ev);
    return out;
}

/* Append `ev` (stolen) to *out, made on first use. */
static int
add(PyObject **out, PyObject *ev)
{
    if (ev == NULL)
        return -1;
    if (*out == NULL && (*out = PyList_New(0)) == NULL) {
        Py_DECREF(ev);
        return -1;
    }
    int r = PyList_Append(*out, ev);
    Py_DECREF(ev);
    return r;
}

/* _Candidate.trim: keep only the last `keep` characters of the text kept. */
static int
trim_kept(Direct *d)
{
    PyObject *sep = PyUnicode_New(0, 0);
    if (sep == NULL)
        return -1;
    PyObject *whole = PyUnicode_Join(sep, d->chunks);
    Py_DECREF(sep);
    if (whole == NULL)
        return -1;
    Py_ssize_t len = PyUnicode_GET_LENGTH(whole), cut = len - d->keep;
    Py_ssize_t start = cut >= 0 ? cut : (len + cut > 0 ? len + cut : 0); /* whole[cut:] */
    PyObject *kept = PyUnicode_Substring(whole, start, len);
    Py_DECREF(whole);
    if (kept == NULL)
        return -1;
    PyObject *list = PyList_New(1);
    if (list == NULL) {
        Py_DECREF(kept);
        return -1;
    }
    PyList_SET_ITEM(list, 0, kept);
    int r = PyList_SetSlice(d->chunks, 0, PyList_GET_SIZE(d->chunks), list);
    Py_DECREF(list);
    if (r == 0)
        d->base += cut;
    return r;
}

/* The path of a ValueStart, StringDelta or ValueEnd (a tuple), else NULL. */
static PyObject *
value_path(PyObject *ev)
{
    PyTypeObject *t = Py_TYPE(ev);
    if (t != (PyTypeObject *)StringDelta_t && t != (PyTypeObject *)ValueStart_t &&
        t != (PyTypeObject *)ValueEnd_t)
        return NULL;
    if (PyTuple_GET_SIZE(ev) < 2)
        return NULL;
    PyObject *path = PyTuple_GET_ITEM(ev, 0);
    return PyTuple_Check(path) ? path : NULL;
}

/* Whether the item tracker, with no params open, ignores `ev` (ItemTracker.handle and
 * _member): a value inside an item's member, a member's StringDelta other than the
 * content's, or the start of a member other than content or params.  1, 0, or -1. */
static int
ignored(PyObject *ev)
{
    PyObject *path = value_path(ev);
    if (path == NULL)
        return 0;
    Py_ssize_t depth = PyTuple_GET_SIZE(path);
    if (depth >= 3)
        return 1;
    if (depth < 2 || Py_IS_TYPE(ev, (PyTypeObject *)ValueEnd_t))
        return 0;
    PyObject *key = PyTuple_GET_ITEM(path, 1);
    if (!PyUnicode_CheckExact(key))
        return 0;
    int r = PyUnicode_Compare(key, s_content);
    if (r == -1 && PyErr_Occurred())
        return -1;
    if (r == 0)
        return 0;
    if (Py_IS_TYPE(ev, (PyTypeObject *)StringDelta_t))
        return 1;
    if (PyUnicode_Compare(key, s_params) == 0 || PyUnicode_Compare(key, s_parameters) == 0)
        return 0;
    return PyErr_Occurred() ? -1 : 1;
}

/* Whether every event from `from` on is inside the open params' values (depth 3 or
 * more): the tracker only adds the piece to the params' raw text. */
static int
all_in_params(PyObject *events, Py_ssize_t from)
{
    for (Py_ssize_t i = from; i < PyList_GET_SIZE(events); i++) {
        PyObject *path = value_path(PyList_GET_ITEM(events, i));
        if (path == NULL || PyTuple_GET_SIZE(path) < 3)
            return 0;
    }
    return 1;
}

/* Whether `a` is the str `b` (interned or not); -1 on error. */
static int
is_str(PyObject *a, PyObject *b)
{
    if (a == b)
        return 1;
    if (!PyUnicode_CheckExact(a))
        return 0;
    return PyUnicode_Compare(a, b) == 0 ? 1 : (PyErr_Occurred() ? -1 : 0);
}

/* Whether the attribute `name` of `obj` is the str `value`, or is `value` itself when
 * that is not a str (True, MISSING); -1 on error. */
static int
attr_is(PyObject *obj, PyObject *name, PyObject *value)
{
    PyObject *got = PyObject_GetAttr(obj, name);
    if (got == NULL)
        return -1;
    int r = PyUnicode_CheckExact(value) ? is_str(got, value) : got == value;
    Py_DECREF(got);
    return r;
}

/* Whether the attribute `name` of `obj` is an empty list or dict; -1 on error. */
static int
attr_empty(PyObject *obj, PyObject *name)
{
    PyObject *got = PyObject_GetAttr(obj, name);
    if (got == NULL)
        return -1;
    int r = (PyList_CheckExact(got) && PyList_GET_SIZE(got) == 0) ||
            (PyDict_CheckExact(got) && PyDict_GET_SIZE(got) == 0);
    Py_DECREF(got);
    return r;
}

/* The characters shown since the last time into item.content_len (the tracker's count). */
static int
flush_len(Direct *d)
{
    if (d->content_len == 0 || d->item == NULL)
        return 0;
    PyObject *len = PyObject_GetAttr(d->item, s_content_len);
    if (len == NULL)
        return -1;
    PyObject *k = PyLong_FromSsize_t(d->content_len);
    PyObject *sum = k == NULL ? NULL : PyNumber_Add(len, k);
    Py_DECREF(len);
    Py_XDECREF(k);
    if (sum == NULL)
        return -1;
    int r = PyObject_SetAttr(d->item, s_content_len, sum);
    Py_DECREF(sum);
    if (r == 0)
        d->content_len = 0;
    return r;
}

/* A StringDelta of the shown content string: its TextDelta added to *out (none for an
 * empty delta).  1, 0 when `ev` is not one, -1 on error. */
static int
text_delta(Direct *d, PyObject *ev, PyObject **out)
{
    if (d->text_path == NULL || !Py_IS_TYPE(ev, (PyTypeObject *)StringDelta_t) ||
        PyTuple_GET_SIZE(ev) < 2)
        return 0;
    PyObject *path = PyTuple_GET_ITEM(ev, 0);
    if (path != d->text_path) {
        int eq = PyObject_RichCompareBool(path, d->text_path, Py_EQ);
        if (eq <= 0)
            return eq;
    }
    PyObject *text = PyTuple_GET_ITEM(ev, 1);
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "a StringDelta's text is not a str");
        return -1;
    }
    Py_ssize_t k = PyUnicode_GET_LENGTH(text);
    if (k == 0)
        return 1;
    d->content_len += k;
    d->text_chars += k;
    return add(out, new_event(TextDelta_t, &text_descr, &text, 1)) < 0 ? -1 : 1;
}

/* The params object of a started action opens (its first params member): the item
 * tracker would set args_key and args_open and follow the params' text; so does the
 * fast path from here on (not in lenient mode, as in Python).  2 when it did, 0 when
 * this is not that case, -1 on error. */
static int
params(Direct *d, PyObject *key, PyObject *kind)
{
    PyObject *item = d->item;
    int r;
    if (d->lenient || (r = is_str(kind, s_object)) <= 0 ||
        (r = attr_is(item, s_is_object, Py_True)) <= 0 ||
        (r = attr_is(item, s_args_key, Py_None)) <= 0)
        return d->lenient ? 0 : r;
    PyObject *index = PyObject_GetAttr(item, s_action);
    if (index == NULL)
        return -1;
    if (index == Py_None) { /* not started: the tracker keeps its raw text for later */
        Py_DECREF(index);
        return 0;
    }
    PyObject *snaps = PyObject_GetAttr(item, s_snaps);
    PyObject *event_id = snaps == NULL ? NULL : PyObject_GetAttr(item, s_event_id);
    PyObject *raw = event_id == NULL ? NULL : PyObject_GetAttr(item, s_raw);
    if (raw == NULL || !PyList_Check(raw) || PyObject_SetAttr(item, s_args_key, key) < 0 ||
        PyObject_SetAttr(item, s_args_open, Py_True) < 0) {
        if (raw != NULL && !PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "Direct: an item's raw is not a list");
        Py_DECREF(index);
        Py_XDECREF(snaps);
        Py_XDECREF(event_id);
        Py_XDECREF(raw);
        return -1;
    }
    Py_XSETREF(d->args_key, Py_NewRef(key));
    Py_XSETREF(d->snaps, snaps);
    Py_XSETREF(d->event_id, event_id);
    Py_XSETREF(d->index, index);
    Py_XSETREF(d->raw, raw);
    d->quiet = 0;
    return 2;
}

/* The members that only set the open item's fields, as ItemTracker._member and
 * _set_type do, in their plain form (anything else is the tracker's): the first
 * "type" of an object item with nothing buffered ("text", or "action" with no name
 * yet: nothing to start); the start of a text item's first content, a string (shown
 * from now on); the end of the shown content.  1 when `ev` was one, 0 if not, -1 on
 * error. */
static int
member(Direct *d, PyObject *ev)
{
    PyObject *item = d->item;
    PyObject *path = value_path(ev);
    if (item == NULL || path == NULL || PyTuple_GET_SIZE(path) != 2)
        return 0;
    PyObject *key = PyTuple_GET_ITEM(path, 1), *value = PyTuple_GET_ITEM(ev, 1);
    int r;
    if (Py_IS_TYPE(ev, (PyTypeObject *)ValueEnd_t)) {
        if (d->text_path != NULL) {
            /* the shown content string ends (no other member can while it is open) */
            if ((r = is_str(key, s_content)) <= 0)
                return r;
            if (flush_len(d) < 0 || PyObject_SetAttr(item, s_content_active, Py_False) < 0 ||
                PyObject_SetAttr(item, s_content_value, value) < 0)
                return -1;
            Py_CLEAR(d->text_path);
            return 1;
        }
        if ((r = is_str(key, s_type)) <= 0)
            return r;
        int text = is_str(value, s_text), action = text == 1 ? 0 : is_str(value, s_action);
        if (text < 0 || action < 0)
            return -1;
        if (!text && !action)
            return 0;
        if ((r = attr_is(item, s_is_object, Py_True)) <= 0 ||
            (r = attr_is(item, s_type_value, MISSING)) <= 0 ||
            (r = attr_empty(item, s_buffered)) <= 0 ||
            (action && (r = attr_empty(item, s_names)) <= 0))
            return r;
        if (PyObject_SetAttr(item, s_type_value, value) < 0 ||
            PyObject_SetAttr(item, s_kind, text ? s_text : s_action) < 0)
            return -1;
        return 1;
    }
    if (!Py_IS_TYPE(ev, (PyTypeObject *)ValueStart_t) || d->text_path != NULL)
        return 0;
    if ((r = is_str(key, s_params)) != 0 || (r = is_str(key, s_parameters)) != 0)
        return r < 0 ? -1 : params(d, key, value);
    if ((r = is_str(key, s_content)) <= 0 || (r = is_str(value, s_string)) <= 0 ||
        (r = attr_is(item, s_is_object, Py_True)) <= 0 ||
        (r = attr_is(item, s_kind, s_text)) <= 0 || (r = attr_is(item, s_content, s_none)) <= 0)
        return r;
    if (PyObject_SetAttr(item, s_content, s_string) < 0 ||
        PyObject_SetAttr(item, s_content_active, Py_True) < 0 ||
        PyObject_SetAttr(item, s_content_path, path) < 0)
        return -1;
    d->text_path = Py_NewRef(path);
    return 1;
}

/* `text` is the next raw delta of the open action's params: an ActionArgsDelta added
 * to *out (ItemTracker.flush_args; `changed`: path events came since the last one). */
static int
args_delta(Direct *d, PyObject *text, int changed, PyObject **out)
{
    PyObject *value = PyObject_GetAttr(d->core, s_value);
    if (value == NULL)
        return -1;
    PyObject *last = PySequence_GetItem(value, -1);
    Py_DECREF(value);
    if (last == NULL)
        return -1;
    PyObject *args = PyObject_GetItem(last, d->args_key);
    Py_DECREF(last);
    if (args == NULL)
        return -1;
    PyObject *grown = PyLong_FromSsize_t(PyUnicode_GET_LENGTH(text));
    if (grown == NULL) {
        Py_DECREF(args);
        return -1;
    }
    PyObject *call[5] = {d->snaps, args, grown, Py_False, changed ? Py_True : Py_False};
    PyObject *partial =
        PyObject_VectorcallMethod(s_take, call, 5 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    Py_DECREF(grown);
    Py_DECREF(args);
    if (partial == NULL)
        return -1;
    PyObject *descrs[4] = {id_descr, index_descr, partial_descr, delta_descr};
    PyObject *values[4] = {d->event_id, d->index, partial, text};
    int r = add(out, new_event(ArgsDelta_t, descrs, values, 4));
    Py_DECREF(partial);
    return r;
}

/* The fast state from the parser (see _inside): the tracker's open item (or None),
 * whether its content is the string being shown, the open action (params key,
 * snapshots, event id, index, raw list) or None, quiet. */
static int
set_state(Direct *d, PyObject *item, int text, PyObject *action, int quiet)
{
    PyObject *args_key = NULL, *snaps = NULL, *event_id = NULL, *index = NULL, *raw = NULL;
    PyObject *text_path = NULL;
    if (action != Py_None) {
        if (!PyArg_ParseTuple(action, "OOOOO!:Direct action", &args_key, &snaps, &event_id,
                              &index, &PyList_Type, &raw))
            return -1;
    }
    if (text) {
        if (item == Py_None) {
            PyErr_SetString(PyExc_ValueError, "Direct: shown text needs its item");
            return -1;
        }
        if ((text_path = PyObject_GetAttr(item, s_content_path)) == NULL)
            return -1;
    }
    if (flush_len(d) < 0) {
        Py_XDECREF(text_path);
        return -1;
    }
    Py_XSETREF(d->item, item == Py_None ? NULL : Py_NewRef(item));
    Py_XSETREF(d->text_path, text_path);
    Py_XSETREF(d->args_key, Py_XNewRef(args_key));
    Py_XSETREF(d->snaps, Py_XNewRef(snaps));
    Py_XSETREF(d->event_id, Py_XNewRef(event_id));
    Py_XSETREF(d->index, Py_XNewRef(index));
    Py_XSETREF(d->raw, Py_XNewRef(raw));
    d->quiet = quiet;
    return 0;
}

/* Where the next piece of `chunk` ends: before a '{' (not at `start`) or after a '}'
 * (interleaved.py _pieces: the params' raw text is a run of whole pieces). */
static Py_ssize_t
next_cut(int kind, const void *data, Py_ssize_t n, Py_ssize_t start, int *braces)
{
    for (Py_ssize_t i = start; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == '{') {
            *braces = 1;
            if (i > start)
                return i;
        }
        else if (c == '}') {
            *braces = 1;
            return i + 1;
        }
    }
    return n;
}

/* The item boundaries in their plain form, as ItemTracker.handle and _end_item take
 * them (anything else is the tracker's): an item opens (a new Item, the tracker's
 * open item); a text item whose content was one string ends, with no note, repair
 * or second content to report (nothing to emit).  1 when `ev` was one, 0 if not, -1
 * on error. */
static int
boundary(Direct *d, PyObject *ev)
{
    PyObject *path = value_path(ev);
    if (path == NULL || PyTuple_GET_SIZE(path) != 1 || d->text_path != NULL)
        return 0;
    int r;
    if (Py_IS_TYPE(ev, (PyTypeObject *)ValueStart_t)) {
        PyObject *pos = PyTuple_GET_ITEM(path, 0);
        if (d->item != NULL || !PyLong_CheckExact(pos))
            return 0;
        if ((r = is_str(PyTuple_GET_ITEM(ev, 1), s_object)) < 0)
            return -1;
        PyObject *item = PyObject_CallFunctionObjArgs(Item_t, pos, r ? Py_True : Py_False, NULL);
        if (item == NULL)
            return -1;
        if (PyObject_SetAttr(d->tracker, s__item, item) < 0) {
            Py_DECREF(item);
            return -1;
        }
        d->item = item;
        return 1;
    }
    PyObject *item = d->item;
    if (!Py_IS_TYPE(ev, (PyTypeObject *)ValueEnd_t) || item == NULL)
        return 0;
    if ((r = attr_is(item, s_is_object, Py_True)) <= 0 ||
        (r = attr_is(item, s_kind, s_text)) <= 0 ||
        (r = attr_is(item, s_content, s_string)) <= 0 ||
        (r = attr_is(item, s_content_dup, Py_False)) <= 0 ||
        (r = attr_empty(item, s_notes)) <= 0 || (r = attr_empty(d->tracker, s__repairs)) <= 0)
        return r;
    if (flush_len(d) < 0 || PyObject_SetAttr(d->tracker, s__item, Py_None) < 0)
        return -1;
    Py_CLEAR(d->item);
    return 1;
}

/* The piece handled here, the tracker not needed: 1 (events maybe added to *out, or
 * the piece's length to *deferred: params text, its delta made at the chunk's end),
 * 0 when the tracker must take the piece's events from *from on, -1 on error. */
static int
take_piece(Direct *d, PyObject *events, PyObject *piece, Py_ssize_t at, int whole,
           PyObject **out, Py_ssize_t *dstart, Py_ssize_t *deferred, Py_ssize_t *from)
{
    *from = 0;
    if (d->args_key != NULL) {
        if (whole) /* strict: only a '}' ends the params, and the chunk has none */
            return args_delta(d, piece, PyList_GET_SIZE(events) != 0, out) < 0 ? -1 : 1;
        if (!all_in_params(events, 0))
            return 0;
        if (*deferred == 0)
            *dstart = at;
        *deferred += PyUnicode_GET_LENGTH(piece);
        return 1;
    }
    if (!d->quiet) /* params open that the fast path does not follow */
        return 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(events); i++) {
        PyObject *ev = PyList_GET_ITEM(events, i);
        int r = text_delta(d, ev, out);
        if (r == 0)
            r = ignored(ev);
        if (r == 0)
            r = member(d, ev);
        if (r == 0)
            r = boundary(d, ev);
        if (r == 2) { /* the params opened (the piece starts with their '{'): follow them */
            if (!all_in_params(events, i + 1)) {
                *from = i + 1;
                return 0;
            }
            *dstart = at;
            *deferred = PyUnicode_GET_LENGTH(piece);
            return 1;
        }
        if (r <= 0) {
            *from = i;
            return r;
        }
    }
    return 1; /* between values (a key, a split escape), shown text, or plain members */
}

/* The deferred params text (`deferred` characters of the chunk from `dstart`) into
 * the open action's raw list, where the tracker expects it. */
static int
push_deferred(Direct *d, PyObject *chunk, Py_ssize_t dstart, Py_ssize_t deferred)
{
    if (deferred == 0)
        return 0;
    PyObject *text = PyUnicode_Substring(chunk, dstart, dstart + deferred);
    if (text == NULL)
        return -1;
    int r = PyList_Append(d->raw, text);
    Py_DECREF(text);
    return r;
}

/* The parser's _inside(events, piece, before, end, last), the text shown so far
 * counted in its item first. */
static PyObject *
call_step(Direct *d, PyObject *events, PyObject *piece, Py_ssize_t before, int last)
{
    if (flush_len(d) < 0)
        return NULL;
    PyObject *b = PyLong_FromSsize_t(before), *e = PyLong_FromSsize_t(d->end);
    PyObject *res = NULL;
    if (b != NULL && e != NULL) {
        PyObject *call[5] = {events, piece, b, e, last ? Py_True : Py_False};
        res = PyObject_Vectorcall(d->step, call, 5, NULL);
    }
    Py_XDECREF(b);
    Py_XDECREF(e);
    return res;
}

/* `out` (may be NULL) followed by `more` (stolen). */
static PyObject *
joined(PyObject *out, PyObject *more)
{
    if (more == NULL || out == NULL)
        return more;
    Py_ssize_t n = PyList_GET_SIZE(out);
    if (PyList_SetSlice(out, n, n, more) < 0) {
        Py_DECREF(more);
        return NULL;
    }
    Py_DECREF(more);
    return Py_NewRef(out);
}

static PyObject *
direct_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Direct *d = (Direct *)self;
    if (PyVectorcall_NARGS(nargsf) != 1 || kwnames != NULL) {
        PyErr_SetString(PyExc_TypeError, "Direct takes one chunk");
        return NULL;
    }
    PyObject *chunk = args[0];
    if (!PyUnicode_CheckExact(chunk))
        Py_RETURN_NONE;
    Py_ssize_t n = PyUnicode_GET_LENGTH(chunk);
    int kind = PyUnicode_KIND(chunk);
    const void *data = PyUnicode_DATA(chunk);
    if (d->fed - d->base > d->trim && trim_kept(d) < 0)
        return NULL;
    if (PyList_Append(d->chunks, chunk) < 0)
        return NULL;
    d->end = d->fed + n;
    PyObject *out = NULL, *result = NULL;
    Py_ssize_t dstart = 0, deferred = 0, start = 0; /* params text held: [dstart, +deferred) */
    int hooked = 0, braces = 0; /* whether the chunk holds a brace (seen by next_cut) */
    do {
        Py_ssize_t stop = next_cut(kind, data, n, start, &braces);
        int single = start == 0 && stop == n;
        PyObject *piece = single ? Py_NewRef(chunk) : PyUnicode_Substring(chunk, start, stop);
        if (piece == NULL)
            goto done;
        Py_ssize_t before = d->fed, at = start; /* the piece's offsets: array, chunk */
        d->fed += stop - start;
        start = stop;
        PyObject *events = PyObject_CallOneArg(d->feed, piece);
        if (events == NULL) {
            /* a JSON error: the parser takes over with this piece (see feed()) */
            if (!hooked && d->raw != NULL && push_deferred(d, chunk, dstart, deferred) < 0) {
                Py_DECREF(piece);
                goto done;
            }
            PyObject *et, *ev, *tb;
            PyErr_Fetch(&et, &ev, &tb);
            Py_XSETREF(d->piece, piece);
            Py_XSETREF(d->pending, out != NULL ? out : PyList_New(0));
            out = NULL;
            if (d->pending == NULL) {
                Py_XDECREF(et);
                Py_XDECREF(ev);
                Py_XDECREF(tb);
                goto done;
            }
            PyErr_Restore(et, ev, tb);
            goto done;
        }
        if (!PyList_CheckExact(events)) {
            Py_DECREF(events);
            Py_DECREF(piece);
            PyErr_SetString(PyExc_TypeError, "feed_events did not return a list");
            goto done;
        }
        int r = 0;
        Py_ssize_t from = 0;
        if (!hooked) {
            r = take_piece(d, events, piece, at, single && !braces, &out, &dstart, &deferred,
                           &from);
            if (r == 0) {
                hooked = 1;
                if (d->raw != NULL && push_deferred(d, chunk, dstart, deferred) < 0)
                    r = -1;
                else if (from > 0) { /* the tracker takes the events not handled here */
                    PyObject *rest = PyList_GetSlice(events, from, PyList_GET_SIZE(events));
                    Py_SETREF(events, rest);
                    if (rest == NULL) {
                        Py_DECREF(piece);
                        goto done;
                    }
                }
            }
        }
        if (r == 0) {
            PyObject *res = call_step(d, events, piece, before, start == n);
            if (res == NULL)
                r = -1;
            else if (PyList_CheckExact(res)) {
                /* the array closed: the parser left the fast path */
                Py_DECREF(events);
                Py_DECREF(piece);
                result = joined(out, res);
                goto done;
            }
            else if (start == n) {
                PyObject *got, *item, *action;
                int text, quiet;
                if (!PyArg_ParseTuple(res, "O!OpOp:_inside", &PyList_Type, &got, &item, &text,
                                      &action, &quiet) ||
                    set_state(d, item, text, action, quiet) < 0)
                    r = -1;
                else if (PyList_GET_SIZE(got)) {
                    if (out == NULL)
                        out = Py_NewRef(got);
                    else if (PyList_SetSlice(out, PyList_GET_SIZE(out), PyList_GET_SIZE(out),
                                             got) < 0)
                        r = -1;
                }
            }
            Py_XDECREF(res);
        }
        Py_DECREF(events);
        Py_DECREF(piece);
        if (r < 0)
            goto done;
    } while (start < n);
    if (!hooked && deferred) {
        PyObject *text = deferred == n ? Py_NewRef(chunk)
                                       : PyUnicode_Substring(chunk, dstart, dstart + deferred);
        int r = text == NULL ? -1 : args_delta(d, text, 1, &out);
        Py_XDECREF(text);
        if (r < 0)
            goto done;
    }
    result = out != NULL ? Py_NewRef(out) : PyList_New(0);
done:
    Py_XDECREF(out);
    return result;
}

static PyObject *
direct_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *feed, *core, *chunks, *step, *tracker, *item, *action;
    Py_ssize_t fed, base, keep, trim;
    int text, quiet, lenient;
    static char *names[] = {"feed_events", "core", "chunks", "step", "tracker", "fed",
                            "base", "keep", "trim", "item", "text", "action", "quiet",
                            "lenient", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO!OOnnnnOpOpp:Direct", names, &feed, &core,
                                     &PyList_Type, &chunks, &step, &tracker, &fed, &base,
                                     &keep, &trim, &item, &text, &action, &quiet, &lenient))
        return NULL;
    if (!PyCallable_Check(feed) || !PyCallable_Check(step) || keep < 0 || trim < keep) {
        PyErr_SetString(PyExc_ValueError, "Direct: bad feed_events, step, keep or trim");
        return NULL;
    }
    Direct *d = (Direct *)type->tp_alloc(type, 0);
    if (d == NULL)
        return NULL;
    d->vectorcall = direct_call;
    d->feed = Py_NewRef(feed);
    d->core = Py_NewRef(core);
    d->chunks = Py_NewRef(chunks);
    d->step = Py_NewRef(step);
    d->tracker = Py_NewRef(tracker);
    d->lenient = lenient;
    d->fed = d->end = fed;
    d->base = base;
    d->keep = keep;
    d->trim = trim;
    if (set_state(d, item, text, action, quiet) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return (PyObject *)d;
}

static int
direct_traverse(Direct *d, visitproc visit, void *arg)
{
    Py_VISIT(d->feed);
    Py_VISIT(d->core);
    Py_VISIT(d->chunks);
    Py_VISIT(d->step);
    Py_VISIT(d->tracker);
    Py_VISIT(d->item);
    Py_VISIT(d->text_path);
    Py_VISIT(d->args_key);
    Py_VISIT(d->snaps);
    Py_VISIT(d->event_id);
    Py_VISIT(d->index);
    Py_VISIT(d->raw);
    Py_VISIT(d->piece);
    Py_VISIT(d->pending);
    return 0;
}

static int
direct_clear(Direct *d)
{
    Py_CLEAR(d->feed);
    Py_CLEAR(d->core);
    Py_CLEAR(d->chunks);
    Py_CLEAR(d->step);
    Py_CLEAR(d->tracker);
    Py_CLEAR(d->item);
    Py_CLEAR(d->text_path);
    Py_CLEAR(d->args_key);
    Py_CLEAR(d->snaps);
    Py_CLEAR(d->event_id);
    Py_CLEAR(d->index);
    Py_CLEAR(d->raw);
    Py_CLEAR(d->piece);
    Py_CLEAR(d->pending);
    return 0;
}

static void
direct_dealloc(Direct *d)
{
    PyObject_GC_UnTrack(d);
    direct_clear(d);
    Py_TYPE(d)->tp_free((PyObject *)d);
}

static PyMemberDef direct_members[] = {
    {"fed", T_PYSSIZET, offsetof(Direct, fed), READONLY, "characters fed to the core"},
    {"end", T_PYSSIZET, offsetof(Direct, end), READONLY,
     "array offset of the end of the chunks taken"},
    {"base", T_PYSSIZET, offsetof(Direct, base), READONLY, "array offset of the text kept"},
    {"content_len", T_PYSSIZET, offsetof(Direct, content_len), READONLY,
     "characters the text item's TextDeltas carried here"},
    {"text_chars", T_PYSSIZET, offsetof(Direct, text_chars), READONLY,
     "characters of text shown here"},
    {"item", T_OBJECT, offsetof(Direct, item), READONLY,
     "the open item (its content_len does not count content_len yet)"},
    {"piece", T_OBJECT, offsetof(Direct, piece), READONLY,
     "after a JSON error: the piece the core raised on"},
    {"pending", T_OBJECT, offsetof(Direct, pending), READONLY,
     "after a JSON error: the events the chunk made before it"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject DirectType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unspool.protocols._direct.Direct",
    .tp_basicsize = sizeof(Direct),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "InterleavedParser's fast path in C (see interleaved.py).",
    .tp_new = direct_new,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Direct, vectorcall),
    .tp_traverse = (traverseproc)direct_traverse,
    .tp_clear = (inquiry)direct_clear,
    .tp_dealloc = (destructor)direct_dealloc,
    .tp_members = direct_members,
};

/* ------------------------------------------------------------------ TagParser's text */

/* `s` with its ASCII capitals lowered (str.translate(ASCII_FOLD)), a new reference. */
static PyObject *
ascii_lower(PyObject *s)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t i = 0;
    while (i < n) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= 'A' && c <= 'Z')
            break;
        i++;
    }
    if (i == n)
        return Py_NewRef(s);
    PyObject *out = PyUnicode_New(n, PyUnicode_MAX_CHAR_VALUE(s));
    if (out == NULL)
        return NULL;
    int okind = PyUnicode_KIND(out);
    void *odata = PyUnicode_DATA(out);
    for (i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        PyUnicode_WRITE(okind, odata, i, (c >= 'A' && c <= 'Z') ? c + 32 : c);
    }
    return out;
}


/* Whether `chunk` holds one of the characters of `stops`: 1, 0, or -1 on error. */
static int
holds_any(PyObject *chunk, PyObject *stops)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(chunk), k = PyUnicode_GET_LENGTH(stops);
    int kind = PyUnicode_KIND(stops);
    const void *data = PyUnicode_DATA(stops);
    for (Py_ssize_t i = 0; i < k; i++) {
        Py_ssize_t at = PyUnicode_FindChar(chunk, PyUnicode_READ(kind, data, i), 0, n, 1);
        if (at == -2)
            return -1;
        if (at >= 0)
            return 1;
    }
    return 0;
}


typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *stops;       /* str: the characters at which a delimiter may begin */
    PyObject *held;        /* str: the text held back (TagParser._held) */
    PyObject *prefixes;    /* frozenset: the delimiters' proper prefixes (folded) */
    PyObject *find;        /* the lexer's regex search: a delimiter or signal in a text */
    Py_ssize_t max_hold;   /* the longest proper prefix */
    int fold;              /* ASCII case folding */
    int reasoning;         /* inside <think>: the text is ReasoningDelta */
    int lines;             /* markdown prose (CodeTracker.key "prose"): newlines are taken */
    int line_start;        /* CodeTracker._line_start (lines only) */
    Py_ssize_t indent;     /* CodeTracker._indent (lines only) */
    Py_ssize_t lag;        /* characters taken (read back as TagParser._lag) */
    Py_ssize_t text_chars; /* characters of text shown (read back as text_chars) */
} TextRun;

/* Delimiters.hold: the length of the longest suffix of `s` that is a proper prefix of a
 * delimiter (0 if none), or -1 on error; `s` holds no signal (find found none). */
static Py_ssize_t
text_run_hold(TextRun *t, PyObject *s)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    Py_ssize_t limit = t->max_hold < n ? t->max_hold : n;
    for (Py_ssize_t k = limit; k > 0; k--) {
        Py_UCS4 c = PyUnicode_READ_CHAR(s, n - k);
        if (PyUnicode_FindChar(t->stops, c, 0, PyUnicode_GET_LENGTH(t->stops), 1) < 0)
            continue;
        PyObject *tail = PyUnicode_Substring(s, n - k, n);
        if (tail == NULL)
            return -1;
        PyObject *key = t->fold ? ascii_lower(tail) : Py_NewRef(tail);
        Py_DECREF(tail);
        if (key == NULL)
            return -1;
        int in = PySet_Contains(t->prefixes, key);
        Py_DECREF(key);
        if (in < 0)
            return -1;
        if (in)
            return k;
    }
    return 0;
}

/* A chunk of markdown prose whose only stop characters are newlines, taken as
 * TagParser._scan_text with CodeTracker does (a newline signals a line start; at a line
 * start up to three spaces are indent, a backtick or tilde may open a fence, anything
 * else ends it): 1 when all of it is text (the line state updated), 0 when it is
 * Python's (nothing changed), -1 on error. */
static int
text_run_lines(TextRun *t, PyObject *chunk)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(chunk), nstops = PyUnicode_GET_LENGTH(t->stops);
    int kind = PyUnicode_KIND(chunk);
    const void *data = PyUnicode_DATA(chunk);
    int line_start = t->line_start;
    Py_ssize_t indent = t->indent;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (line_start) {
            if (c == ' ' && indent < 3) {
                indent++;
                continue;
            }
            if (c == '`' || c == '~')
                return 0;
            if (c == '\n') {
                indent = 0;
                continue;
            }
            line_start = 0;
        }
        if (c == '\n') {
            line_start = 1;
            indent = 0;
            continue;
        }
        Py_ssize_t at = PyUnicode_FindChar(t->stops, c, 0, nstops, 1);
        if (at == -2)
            return -1;
        if (at >= 0)
            return 0; /* a delimiter may begin here, or a backtick: Python's */
    }
    t->line_start = line_start;
    t->indent = indent;
    return 1;
}

/* The text event of `text` (counted), as TagParser._flush_text makes it. */
static PyObject *
text_run_event(TextRun *t, PyObject *text)
{
    if (t->reasoning)
        return one(new_event(ReasoningDelta_t, &reasoning_descr, &text, 1));
    t->text_chars += PyUnicode_GET_LENGTH(text);
    return one(new_event(TextDelta_t, &text_descr, &text, 1));
}

static PyObject *
text_run_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    TextRun *t = (TextRun *)self;
    if (PyVectorcall_NARGS(nargsf) != 1 || kwnames != NULL) {
        PyErr_SetString(PyExc_TypeError, "TextRun takes one chunk");
        return NULL;
    }
    PyObject *chunk = args[0];
    if (!PyUnicode_CheckExact(chunk))
        Py_RETURN_NONE;
    Py_ssize_t n = PyUnicode_GET_LENGTH(chunk);
    if (n == 0) /* TagParser._run takes nothing */
        return PyList_New(0);
    if (PyUnicode_GET_LENGTH(t->held) == 0) {
        int stop = holds_any(chunk, t->stops);
        if (stop < 0)
            return NULL;
        if (!stop && !t->line_start) { /* no delimiter can begin in it: all text */
            t->lag += n;
            return text_run_event(t, chunk);
        }
        if (t->lines) {
            int r = text_run_lines(t, chunk);
            if (r < 0)
                return NULL;
            if (r) {
                t->lag += n;
                return text_run_event(t, chunk);
            }
        }
    }
    if (t->line_start) /* CodeTracker.step's line start: Python's */
        Py_RETURN_NONE;
    /* TagParser._scan_text when its lexer finds nothing in held + chunk: the text up to
     * the hold-back, which is held */
    PyObject *s = PyUnicode_Concat(t->held, chunk);
    if (s == NULL)
        return NULL;
    PyObject *found = PyObject_CallOneArg(t->find, s);
    if (found == NULL) {
        Py_DECREF(s);
        return NULL;
    }
    Py_DECREF(found);
    if (found != Py_None) { /* a delimiter or a signal: Python's */
        Py_DECREF(s);
        Py_RETURN_NONE;
    }
    Py_ssize_t k = text_run_hold(t, s);
    if (k < 0) {
        Py_DECREF(s);
        return NULL;
    }
    Py_ssize_t len = PyUnicode_GET_LENGTH(s);
    PyObject *held = PyUnicode_Substring(s, len - k, len);
    PyObject *text = held == NULL ? NULL : PyUnicode_Substring(s, 0, len - k);
    Py_DECREF(s);
    if (text == NULL) {
        Py_XDECREF(held);
        return NULL;
    }
    Py_SETREF(t->held, held);
    t->lag += n;
    PyObject *out = PyUnicode_GET_LENGTH(text) ? text_run_event(t, text) : PyList_New(0);
    Py_DECREF(text);
    return out;
}

static PyObject *
text_run_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *stops, *held, *prefixes, *find;
    Py_ssize_t max_hold, indent = 0;
    int fold, reasoning, lines = 0, line_start = 0;
    static char *names[] = {"stops",     "held",  "prefixes", "find",  "max_hold", "fold",
                            "reasoning", "lines", "line_start", "indent", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "UUO!Onpp|ppn:TextRun", names, &stops, &held,
                                     &PyFrozenSet_Type, &prefixes, &find, &max_hold, &fold,
                                     &reasoning, &lines, &line_start, &indent))
        return NULL;
    if (line_start && !lines) {
        PyErr_SetString(PyExc_ValueError, "TextRun: a line start is for lines only");
        return NULL;
    }
    if (!PyCallable_Check(find)) {
        PyErr_SetString(PyExc_TypeError, "TextRun: find must be callable");
        return NULL;
    }
    TextRun *t = (TextRun *)type->tp_alloc(type, 0);
    if (t == NULL)
        return NULL;
    t->vectorcall = text_run_call;
    t->stops = Py_NewRef(stops);
    t->held = Py_NewRef(held);
    t->prefixes = Py_NewRef(prefixes);
    t->find = Py_NewRef(find);
    t->max_hold = max_hold;
    t->fold = fold;
    t->reasoning = reasoning;
    t->lines = lines;
    t->line_start = line_start;
    t->indent = indent;
    return (PyObject *)t;
}

static int
text_run_traverse(TextRun *t, visitproc visit, void *arg)
{
    Py_VISIT(t->stops);
    Py_VISIT(t->held);
    Py_VISIT(t->prefixes);
    Py_VISIT(t->find);
    return 0;
}

static int
text_run_clear(TextRun *t)
{
    Py_CLEAR(t->stops);
    Py_CLEAR(t->held);
    Py_CLEAR(t->prefixes);
    Py_CLEAR(t->find);
    return 0;
}

static void
text_run_dealloc(TextRun *t)
{
    PyObject_GC_UnTrack(t);
    text_run_clear(t);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static PyMemberDef text_run_members[] = {
    {"lag", T_PYSSIZET, offsetof(TextRun, lag), READONLY, "characters taken"},
    {"text_chars", T_PYSSIZET, offsetof(TextRun, text_chars), READONLY,
     "characters of text shown"},
    {"held", T_OBJECT, offsetof(TextRun, held), READONLY, "the text held back now"},
    {"line_start", T_INT, offsetof(TextRun, line_start), READONLY,
     "at a line's start (CodeTracker._line_start)"},
    {"indent", T_PYSSIZET, offsetof(TextRun, indent), READONLY,
     "its indent so far (CodeTracker._indent)"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject TextRunType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unspool.protocols._direct.TextRun",
    .tp_basicsize = sizeof(TextRun),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "TagParser's text fast path in C (see tags.py).",
    .tp_new = text_run_new,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(TextRun, vectorcall),
    .tp_traverse = (traverseproc)text_run_traverse,
    .tp_clear = (inquiry)text_run_clear,
    .tp_dealloc = (destructor)text_run_dealloc,
    .tp_members = text_run_members,
};

/* ------------------------------------------------------------------ TagParser's bodies */

/* BodyRun(stops, feed_events, core, parts, snaps, event_id, index, odd, lenient, grew): in
 * a started action's body that is its JSON arguments while the JSON reads on
 * (BodyScanner.args_only), a str chunk without a character at which the closer can
 * begin is fed to the core; when the value stays open (no error, no text after it) the
 * chunk is appended to `parts` and its ActionArgsDelta made here, its snapshot from
 * `snaps` (BodyScanner.feed_args's common case and TagParser.feed's Python body path).
 * When the core raised MalformedJSON or left text after the value, `odd(chunk, exc or
 * None, changed)` (TagParser._body_odd) finishes the chunk in Python and returns its
 * events.  Why: the bodies are a third of a reply's chunks, and their Python
 * bookkeeping cost more than the core's own work. */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *stops;    /* str: the characters at which the close delimiter may begin */
    PyObject *feed;     /* the core's feed_events */
    PyObject *core;     /* the core (its value and tail) */
    PyObject *parts;    /* BodyScanner._parts: the body text so far */
    PyObject *snaps;    /* the action's snapshots */
    PyObject *event_id; /* the action's id and index, for its ActionArgsDelta */
    PyObject *index;
    PyObject *odd;      /* TagParser._body_odd: the chunk's end when the core did not go on */
    PyObject *partial;  /* the core's value after the last chunk taken, or NULL */
    int lenient;        /* every feed may change the value (BodyScanner.feed_args) */
    int grew;           /* BodyScanner.grew */
    Py_ssize_t lag;     /* characters taken (the body's _size and _fed grow by them) */
    Py_ssize_t text_chars; /* always 0: read back as TextRun's is */
} BodyRun;

/* The odd end of a chunk the core took: it raised `exc` (a MalformedJSON) or, exc None,
 * left text after the value (`changed`: it made path events). */
static PyObject *
body_run_odd(BodyRun *b, PyObject *chunk, PyObject *exc, int changed)
{
    PyObject *call[3] = {chunk, exc, changed ? Py_True : Py_False};
    Py_INCREF(b); /* the parser lets go of this run in there */
    PyObject *out = PyObject_Vectorcall(b->odd, call, 3, NULL);
    Py_DECREF(b);
    return out;
}

static PyObject *
body_run_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    BodyRun *b = (BodyRun *)self;
    if (PyVectorcall_NARGS(nargsf) != 1 || kwnames != NULL) {
        PyErr_SetString(PyExc_TypeError, "BodyRun takes one chunk");
        return NULL;
    }
    PyObject *chunk = args[0];
    if (!PyUnicode_CheckExact(chunk) || PyUnicode_GET_LENGTH(chunk) == 0)
        Py_RETURN_NONE;
    int stop = holds_any(chunk, b->stops);
    if (stop < 0)
        return NULL;
    if (stop)
        Py_RETURN_NONE;
    PyObject *events = PyObject_CallOneArg(b->feed, chunk);
    if (events == NULL) {
        if (!PyErr_ExceptionMatches(MalformedJSON_t))
            return NULL;
        PyObject *type, *exc, *tb;
        PyErr_Fetch(&type, &exc, &tb);
        PyErr_NormalizeException(&type, &exc, &tb);
        if (tb != NULL && exc != NULL)
            PyException_SetTraceback(exc, tb);
        Py_XDECREF(type);
        Py_XDECREF(tb);
        if (exc == NULL)
            return NULL;
        PyObject *out = body_run_odd(b, chunk, exc, 0);
        Py_DECREF(exc);
        return out;
    }
    int changed = PyObject_IsTrue(events);
    Py_DECREF(events);
    if (changed < 0)
        return NULL;
    PyObject *tail = PyObject_GetAttr(b->core, s_tail);
    if (tail == NULL)
        return NULL;
    int has_tail = PyObject_IsTrue(tail);
    Py_DECREF(tail);
    if (has_tail < 0)
        return NULL;
    if (has_tail)
        return body_run_odd(b, chunk, Py_None, changed);
    /* BodyScanner.feed_args's common case, and the parser's ActionArgsDelta */
    if (changed || b->lenient)
        b->grew = 1;
    PyObject *value = PyObject_GetAttr(b->core, s_value);
    if (value == NULL)
        return NULL;
    Py_XSETREF(b->partial, value);
    if (PyList_Append(b->parts, chunk) < 0)
        return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(chunk);
    b->lag += n;
    PyObject *grown = PyLong_FromSsize_t(n);
    if (grown == NULL)
        return NULL;
    PyObject *call[5] = {b->snaps, value, grown, Py_False, b->grew ? Py_True : Py_False};
    PyObject *partial =
        PyObject_VectorcallMethod(s_take, call, 5 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    Py_DECREF(grown);
    if (partial == NULL)
        return NULL;
    b->grew = 0;
    PyObject *descrs[4] = {id_descr, index_descr, partial_descr, delta_descr};
    PyObject *values[4] = {b->event_id, b->index, partial, chunk};
    PyObject *ev = new_event(ArgsDelta_t, descrs, values, 4);
    Py_DECREF(partial);
    return one(ev);
}

static PyObject *
body_run_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *stops, *feed, *core, *parts, *snaps, *event_id, *index, *odd;
    int lenient, grew;
    static char *names[] = {"stops", "feed_events", "core", "parts", "snaps", "event_id",
                            "index", "odd", "lenient", "grew", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "UOOO!OOOOpp:BodyRun", names, &stops, &feed,
                                     &core, &PyList_Type, &parts, &snaps, &event_id, &index,
                                     &odd, &lenient, &grew))
        return NULL;
    if (!PyCallable_Check(feed) || !PyCallable_Check(odd)) {
        PyErr_SetString(PyExc_TypeError, "BodyRun: feed_events and odd must be callable");
        return NULL;
    }
    if (MalformedJSON_t == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "BodyRun: configure() was not called");
        return NULL;
    }
    BodyRun *b = (BodyRun *)type->tp_alloc(type, 0);
    if (b == NULL)
        return NULL;
    b->vectorcall = body_run_call;
    b->stops = Py_NewRef(stops);
    b->feed = Py_NewRef(feed);
    b->core = Py_NewRef(core);
    b->parts = Py_NewRef(parts);
    b->snaps = Py_NewRef(snaps);
    b->event_id = Py_NewRef(event_id);
    b->index = Py_NewRef(index);
    b->odd = Py_NewRef(odd);
    b->lenient = lenient;
    b->grew = grew;
    return (PyObject *)b;
}

static int
body_run_traverse(BodyRun *b, visitproc visit, void *arg)
{
    Py_VISIT(b->stops);
    Py_VISIT(b->feed);
    Py_VISIT(b->core);
    Py_VISIT(b->parts);
    Py_VISIT(b->snaps);
    Py_VISIT(b->event_id);
    Py_VISIT(b->index);
    Py_VISIT(b->odd);
    Py_VISIT(b->partial);
    return 0;
}

static int
body_run_clear(BodyRun *b)
{
    Py_CLEAR(b->stops);
    Py_CLEAR(b->feed);
    Py_CLEAR(b->core);
    Py_CLEAR(b->parts);
    Py_CLEAR(b->snaps);
    Py_CLEAR(b->event_id);
    Py_CLEAR(b->index);
    Py_CLEAR(b->odd);
    Py_CLEAR(b->partial);
    return 0;
}

static void
body_run_dealloc(BodyRun *b)
{
    PyObject_GC_UnTrack(b);
    body_run_clear(b);
    Py_TYPE(b)->tp_free((PyObject *)b);
}

static PyObject *
body_run_get_grew(BodyRun *b, void *closure)
{
    return PyBool_FromLong(b->grew);
}

static PyObject *
body_run_get_partial(BodyRun *b, void *closure)
{
    return Py_NewRef(b->partial != NULL ? b->partial : Py_None);
}

static PyGetSetDef body_run_getset[] = {
    {"grew", (getter)body_run_get_grew, NULL, "BodyScanner.grew as it stands", NULL},
    {"partial", (getter)body_run_get_partial, NULL,
     "the core's value after the last chunk taken (None before one)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef body_run_members[] = {
    {"lag", T_PYSSIZET, offsetof(BodyRun, lag), READONLY, "characters taken"},
    {"text_chars", T_PYSSIZET, offsetof(BodyRun, text_chars), READONLY,
     "characters of text shown (none: a body is not text; as TextRun's)"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject BodyRunType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unspool.protocols._direct.BodyRun",
    .tp_basicsize = sizeof(BodyRun),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "TagParser's action-body fast path in C (see tags.py).",
    .tp_new = body_run_new,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(BodyRun, vectorcall),
    .tp_traverse = (traverseproc)body_run_traverse,
    .tp_clear = (inquiry)body_run_clear,
    .tp_dealloc = (destructor)body_run_dealloc,
    .tp_members = body_run_members,
    .tp_getset = body_run_getset,
};

/* ------------------------------------------------------------------ TagParser's held text */

/* HeldRun(held, prefixes, search, fold): in an action body whose closer's proper prefix
 * is held (BodyScanner.held), a str chunk after which held + chunk is still a proper
 * prefix (and holds no whole delimiter) only grows what is held: no events.  Any other
 * chunk returns None, nothing changed.  Why: the closer arrives over two or three
 * chunks at 4 characters, each a full Python feed for nothing. */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *held;     /* str: the text held back, a proper prefix of a delimiter */
    PyObject *prefixes; /* frozenset: the delimiters' proper prefixes (folded) */
    PyObject *search;   /* the delimiters' regex search: finds none in a prefix */
    int fold;           /* ASCII case folding */
    Py_ssize_t lag;
    Py_ssize_t text_chars; /* always 0 */
} HeldRun;

static PyObject *
held_run_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    HeldRun *h = (HeldRun *)self;
    if (PyVectorcall_NARGS(nargsf) != 1 || kwnames != NULL) {
        PyErr_SetString(PyExc_TypeError, "HeldRun takes one chunk");
        return NULL;
    }
    PyObject *chunk = args[0];
    if (!PyUnicode_CheckExact(chunk))
        Py_RETURN_NONE;
    PyObject *s = PyUnicode_Concat(h->held, chunk);
    if (s == NULL)
        return NULL;
    PyObject *key = h->fold ? ascii_lower(s) : Py_NewRef(s);
    if (key == NULL) {
        Py_DECREF(s);
        return NULL;
    }
    int prefix = PySet_Contains(h->prefixes, key);
    Py_DECREF(key);
    if (prefix <= 0) {
        Py_DECREF(s);
        return prefix < 0 ? NULL : Py_NewRef(Py_None);
    }
    PyObject *found = PyObject_CallOneArg(h->search, s);
    if (found == NULL) {
        Py_DECREF(s);
        return NULL;
    }
    Py_DECREF(found);
    if (found != Py_None) {
        Py_DECREF(s);
        Py_RETURN_NONE;
    }
    Py_SETREF(h->held, s);
    h->lag += PyUnicode_GET_LENGTH(chunk);
    return PyList_New(0);
}

static PyObject *
held_run_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *held, *prefixes, *search;
    int fold;
    static char *names[] = {"held", "prefixes", "search", "fold", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "UO!Op:HeldRun", names, &held,
                                     &PyFrozenSet_Type, &prefixes, &search, &fold))
        return NULL;
    if (!PyCallable_Check(search)) {
        PyErr_SetString(PyExc_TypeError, "HeldRun: search must be callable");
        return NULL;
    }
    HeldRun *h = (HeldRun *)type->tp_alloc(type, 0);
    if (h == NULL)
        return NULL;
    h->vectorcall = held_run_call;
    h->held = Py_NewRef(held);
    h->prefixes = Py_NewRef(prefixes);
    h->search = Py_NewRef(search);
    h->fold = fold;
    return (PyObject *)h;
}

static int
held_run_traverse(HeldRun *h, visitproc visit, void *arg)
{
    Py_VISIT(h->held);
    Py_VISIT(h->prefixes);
    Py_VISIT(h->search);
    return 0;
}

static int
held_run_clear(HeldRun *h)
{
    Py_CLEAR(h->held);
    Py_CLEAR(h->prefixes);
    Py_CLEAR(h->search);
    return 0;
}

static void
held_run_dealloc(HeldRun *h)
{
    PyObject_GC_UnTrack(h);
    held_run_clear(h);
    Py_TYPE(h)->tp_free((PyObject *)h);
}

static PyMemberDef held_run_members[] = {
    {"lag", T_PYSSIZET, offsetof(HeldRun, lag), READONLY, "characters taken"},
    {"text_chars", T_PYSSIZET, offsetof(HeldRun, text_chars), READONLY,
     "characters of text shown (none while held; as TextRun's)"},
    {"held", T_OBJECT, offsetof(HeldRun, held), READONLY, "the text held back now"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject HeldRunType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unspool.protocols._direct.HeldRun",
    .tp_basicsize = sizeof(HeldRun),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "TagParser's fast path while a delimiter's prefix grows, in C (see tags.py).",
    .tp_new = held_run_new,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(HeldRun, vectorcall),
    .tp_traverse = (traverseproc)held_run_traverse,
    .tp_clear = (inquiry)held_run_clear,
    .tp_dealloc = (destructor)held_run_dealloc,
    .tp_members = held_run_members,
};

/* ------------------------------------------------------------------ TagParser's open tags */

/* TagRun(tag, tag_len, max_tag, quote, after_eq, strict): inside an open tag, a str chunk
 * with no '>' or '<' that keeps the tag within max_tag is added to `tag` (the parser's
 * list) as TagParser._scan_tag adds it, the quote and after-'=' state followed; no
 * events.  Any other chunk (the tag ends, is abandoned or outgrows max_tag) returns
 * None, nothing changed. */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *tag;      /* list: TagParser._tag, the open tag's text so far */
    Py_ssize_t tag_len; /* TagParser._tag_len */
    Py_ssize_t max_tag; /* TagParser._max_tag */
    Py_UCS4 quote;      /* TagParser._quote (0: outside quotes) */
    int after_eq;       /* TagParser._after_eq */
    int strict;         /* only '"' quotes */
    Py_ssize_t lag;
    Py_ssize_t text_chars; /* always 0 */
} TagRun;

static PyObject *
tag_run_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    TagRun *t = (TagRun *)self;
    if (PyVectorcall_NARGS(nargsf) != 1 || kwnames != NULL) {
        PyErr_SetString(PyExc_TypeError, "TagRun takes one chunk");
        return NULL;
    }
    PyObject *chunk = args[0];
    if (!PyUnicode_CheckExact(chunk))
        Py_RETURN_NONE;
    Py_ssize_t n = PyUnicode_GET_LENGTH(chunk);
    if (n == 0)
        return PyList_New(0);
    if (n > t->max_tag - t->tag_len)
        Py_RETURN_NONE; /* the tag may outgrow max_tag_chars here */
    int kind = PyUnicode_KIND(chunk);
    const void *data = PyUnicode_DATA(chunk);
    Py_UCS4 quote = t->quote;
    int after_eq = t->after_eq;
    for (Py_ssize_t j = 0; j < n; j++) { /* TagParser._scan_tag's loop */
        Py_UCS4 c = PyUnicode_READ(kind, data, j);
        if (quote) {
            if (c == quote)
                quote = 0;
            continue;
        }
        if (c == '>' || c == '<')
            Py_RETURN_NONE; /* the tag ends, or was text */
        if (c == '=')
            after_eq = 1;
        else if (after_eq && (c == '"' || (c == '\'' && !t->strict))) {
            quote = c;
            after_eq = 0;
        }
        else if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
            after_eq = 0;
    }
    if (PyList_Append(t->tag, chunk) < 0)
        return NULL;
    t->quote = quote;
    t->after_eq = after_eq;
    t->tag_len += n;
    t->lag += n;
    return PyList_New(0);
}

static PyObject *
tag_run_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *tag, *quote;
    Py_ssize_t tag_len, max_tag;
    int after_eq, strict;
    static char *names[] = {"tag", "tag_len", "max_tag", "quote", "after_eq", "strict", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!nnUpp:TagRun", names, &PyList_Type, &tag,
                                     &tag_len, &max_tag, &quote, &after_eq, &strict))
        return NULL;
    if (PyUnicode_GET_LENGTH(quote) > 1) {
        PyErr_SetString(PyExc_ValueError, "TagRun: quote is one character or none");
        return NULL;
    }
    TagRun *t = (TagRun *)type->tp_alloc(type, 0);
    if (t == NULL)
        return NULL;
    t->vectorcall = tag_run_call;
    t->tag = Py_NewRef(tag);
    t->tag_len = tag_len;
    t->max_tag = max_tag;
    t->quote = PyUnicode_GET_LENGTH(quote) ? PyUnicode_READ_CHAR(quote, 0) : 0;
    t->after_eq = after_eq;
    t->strict = strict;
    return (PyObject *)t;
}

static int
tag_run_traverse(TagRun *t, visitproc visit, void *arg)
{
    Py_VISIT(t->tag);
    return 0;
}

static int
tag_run_clear(TagRun *t)
{
    Py_CLEAR(t->tag);
    return 0;
}

static void
tag_run_dealloc(TagRun *t)
{
    PyObject_GC_UnTrack(t);
    tag_run_clear(t);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static PyObject *
tag_run_get_quote(TagRun *t, void *closure)
{
    if (t->quote == 0)
        return PyUnicode_New(0, 0);
    return PyUnicode_FromOrdinal((int)t->quote);
}

static PyObject *
tag_run_get_after_eq(TagRun *t, void *closure)
{
    return PyBool_FromLong(t->after_eq);
}

static PyGetSetDef tag_run_getset[] = {
    {"quote", (getter)tag_run_get_quote, NULL, "the open quote, or ''", NULL},
    {"after_eq", (getter)tag_run_get_after_eq, NULL, "an '=' came, a quote may open", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef tag_run_members[] = {
    {"lag", T_PYSSIZET, offsetof(TagRun, lag), READONLY, "characters taken"},
    {"text_chars", T_PYSSIZET, offsetof(TagRun, text_chars), READONLY,
     "characters of text shown (none in a tag; as TextRun's)"},
    {"tag_len", T_PYSSIZET, offsetof(TagRun, tag_len), READONLY, "the open tag's length"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject TagRunType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unspool.protocols._direct.TagRun",
    .tp_basicsize = sizeof(TagRun),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "TagParser's fast path inside an open tag's attributes, in C (see tags.py).",
    .tp_new = tag_run_new,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(TagRun, vectorcall),
    .tp_traverse = (traverseproc)tag_run_traverse,
    .tp_clear = (inquiry)tag_run_clear,
    .tp_dealloc = (destructor)tag_run_dealloc,
    .tp_members = tag_run_members,
    .tp_getset = tag_run_getset,
};

/* ------------------------------------------------------------------ module */

static PyObject *
field_descr(PyObject *type, const char *name)
{
    PyObject *d = PyObject_GetAttrString(type, name);
    if (d != NULL && Py_TYPE(d)->tp_descr_set == NULL) {
        Py_DECREF(d);
        PyErr_Format(PyExc_TypeError, "%s is not a slot field", name);
        return NULL;
    }
    return d;
}

static PyObject *
configure(PyObject *module, PyObject *args)
{
    PyObject *sd, *td, *ad, *rd, *vs, *ve, *missing, *item, *malformed;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!OO!O!:configure", &PyType_Type, &sd, &PyType_Type,
                          &td, &PyType_Type, &ad, &PyType_Type, &rd, &PyType_Type, &vs,
                          &PyType_Type, &ve, &missing, &PyType_Type, &item, &PyType_Type,
                          &malformed))
        return NULL;
    Py_XSETREF(MalformedJSON_t, Py_NewRef(malformed));
    Py_XSETREF(MISSING, Py_NewRef(missing));
    Py_XSETREF(Item_t, Py_NewRef(item));
    Py_XSETREF(ValueStart_t, Py_NewRef(vs));
    Py_XSETREF(ValueEnd_t, Py_NewRef(ve));
    Py_XSETREF(ReasoningDelta_t, Py_NewRef(rd));
    Py_XSETREF(reasoning_descr, field_descr(rd, "text"));
    Py_XSETREF(StringDelta_t, Py_NewRef(sd));
    Py_XSETREF(TextDelta_t, Py_NewRef(td));
    Py_XSETREF(ArgsDelta_t, Py_NewRef(ad));
    Py_XSETREF(text_descr, field_descr(td, "text"));
    Py_XSETREF(id_descr, field_descr(ad, "id"));
    Py_XSETREF(index_descr, field_descr(ad, "index"));
    Py_XSETREF(partial_descr, field_descr(ad, "partial"));
    Py_XSETREF(delta_descr, field_descr(ad, "delta"));
    if (!text_descr || !id_descr || !index_descr || !partial_descr || !delta_descr ||
        !reasoning_descr)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(StringDelta, TextDelta, ActionArgsDelta, ReasoningDelta, ValueStart, "
     "ValueEnd, MISSING, Item, MalformedJSON): the event types, the items' unset marker and "
     "their class, the core's error."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_direct", "The protocols' per-chunk fast paths in C.",
    -1, module_methods,
};

PyMODINIT_FUNC
PyInit__direct(void)
{
    if ((s_value = PyUnicode_InternFromString("value")) == NULL ||
        (s_take = PyUnicode_InternFromString("take")) == NULL ||
        (s_content = PyUnicode_InternFromString("content")) == NULL ||
        (s_params = PyUnicode_InternFromString("params")) == NULL ||
        (s_parameters = PyUnicode_InternFromString("parameters")) == NULL ||
        (s_is_object = PyUnicode_InternFromString("is_object")) == NULL ||
        (s_kind = PyUnicode_InternFromString("kind")) == NULL ||
        (s_type_value = PyUnicode_InternFromString("type_value")) == NULL ||
        (s_buffered = PyUnicode_InternFromString("buffered")) == NULL ||
        (s_names = PyUnicode_InternFromString("names")) == NULL ||
        (s_content_active = PyUnicode_InternFromString("content_active")) == NULL ||
        (s_content_path = PyUnicode_InternFromString("content_path")) == NULL ||
        (s_content_value = PyUnicode_InternFromString("content_value")) == NULL ||
        (s_content_len = PyUnicode_InternFromString("content_len")) == NULL ||
        (s_type = PyUnicode_InternFromString("type")) == NULL ||
        (s_text = PyUnicode_InternFromString("text")) == NULL ||
        (s_action = PyUnicode_InternFromString("action")) == NULL ||
        (s_none = PyUnicode_InternFromString("none")) == NULL ||
        (s_string = PyUnicode_InternFromString("string")) == NULL ||
        (s_object = PyUnicode_InternFromString("object")) == NULL ||
        (s_content_dup = PyUnicode_InternFromString("content_dup")) == NULL ||
        (s_notes = PyUnicode_InternFromString("notes")) == NULL ||
        (s__item = PyUnicode_InternFromString("_item")) == NULL ||
        (s__repairs = PyUnicode_InternFromString("_repairs")) == NULL ||
        (s_args_key = PyUnicode_InternFromString("args_key")) == NULL ||
        (s_args_open = PyUnicode_InternFromString("args_open")) == NULL ||
        (s_snaps = PyUnicode_InternFromString("snaps")) == NULL ||
        (s_event_id = PyUnicode_InternFromString("event_id")) == NULL ||
        (s_raw = PyUnicode_InternFromString("raw")) == NULL ||
        (s_tail = PyUnicode_InternFromString("tail")) == NULL ||
        (s_empty = PyTuple_New(0)) == NULL || PyType_Ready(&DirectType) < 0 ||
        PyType_Ready(&TextRunType) < 0 || PyType_Ready(&BodyRunType) < 0 ||
        PyType_Ready(&HeldRunType) < 0 || PyType_Ready(&TagRunType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    Py_INCREF(&DirectType);
    if (PyModule_AddObject(m, "Direct", (PyObject *)&DirectType) < 0) {
        Py_DECREF(&DirectType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&TextRunType);
    if (PyModule_AddObject(m, "TextRun", (PyObject *)&TextRunType) < 0) {
        Py_DECREF(&TextRunType);
        Py_DECREF(m);
        return NULL;
    }
    PyTypeObject *more[3] = {&BodyRunType, &HeldRunType, &TagRunType};
    const char *more_names[3] = {"BodyRun", "HeldRun", "TagRun"};
    for (int i = 0; i < 3; i++) {
        Py_INCREF(more[i]);
        if (PyModule_AddObject(m, more_names[i], (PyObject *)more[i]) < 0) {
            Py_DECREF(more[i]);
            Py_DECREF(m);
            return NULL;
        }
    }
    return m;
}

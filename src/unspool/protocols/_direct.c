/* The C forms of the protocols' per-chunk fast paths; the Python code beside them stays
 * the reference (tests/test_interleaved_direct.py, tests/test_tags_direct.py).
 *
 * TextRun(starts, reasoning) is TagParser's text fast path (tags.py, feed()): a str
 * chunk in which no delimiter can begin (`starts(chunk)` is None) is one TextDelta (or
 * ReasoningDelta); it returns None for any other chunk, having changed nothing.
 *
 * Direct is InterleavedParser's fast path (interleaved.py, feed(): inside the
 * confirmed array, a str chunk with no '{' or '}').
 *
 * Direct(feed_events, core, chunks, fed, base, keep, trim, text_path, args) is made
 * when the fast path opens and read back (fed, base, content_len, text_chars) when
 * it is left.  Calling it with a chunk returns
 *   - a list: the chunk's events, the chunk fully handled;
 *   - a tuple (path_events,): the core read the chunk but the item tracker must
 *     handle its path events (the fast path is over);
 *   - None: the chunk was not taken (not a str, or it holds a brace).
 * A MalformedJSON from the core propagates, the chunk counted as fed (as in Python).
 *
 * Why in C: this path runs on almost every chunk of a reply, and its Python
 * bookkeeping (counting, keeping the tail, reading the event, making the
 * TextDelta or ActionArgsDelta) cost more than the core's own work.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

static PyObject *StringDelta_t, *TextDelta_t, *ArgsDelta_t, *ReasoningDelta_t; /* configure() */
static PyObject *text_descr, *id_descr, *index_descr, *partial_descr, *delta_descr;
static PyObject *reasoning_descr;
static PyObject *s_value, *s_take, *s_empty;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *feed;      /* the core's feed_events */
    PyObject *core;      /* the core (its value, for the args) */
    PyObject *chunks;    /* list: the text kept, shared with the candidate */
    Py_ssize_t fed;      /* characters fed to the core (array offsets) */
    Py_ssize_t base;     /* array offset of chunks[0] */
    Py_ssize_t keep;     /* _KEEP: characters kept when trimming */
    Py_ssize_t trim;     /* _TRIM: trim once this much is kept */
    PyObject *text_path; /* path of the open text item's content string, or NULL */
    Py_ssize_t content_len;
    Py_ssize_t text_chars;
    PyObject *args_key; /* the open action's params key, or NULL */
    PyObject *snaps;
    PyObject *event_id;
    PyObject *index;
    int quiet;
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

/* The chunk's events when it only grew the text item's content: [TextDelta] (or []
 * for an empty delta); NULL with no error when that is not the case. */
static PyObject *
text_events(Direct *d, PyObject *events)
{
    if (d->text_path == NULL || PyList_GET_SIZE(events) != 1)
        return NULL;
    PyObject *ev = PyList_GET_ITEM(events, 0);
    if (!Py_IS_TYPE(ev, (PyTypeObject *)StringDelta_t) || PyTuple_GET_SIZE(ev) < 2)
        return NULL;
    PyObject *path = PyTuple_GET_ITEM(ev, 0);
    if (path != d->text_path) {
        int eq = PyObject_RichCompareBool(path, d->text_path, Py_EQ);
        if (eq <= 0)
            return NULL; /* an error stays set: the caller checks */
    }
    PyObject *text = PyTuple_GET_ITEM(ev, 1);
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "a StringDelta's text is not a str");
        return NULL;
    }
    Py_ssize_t k = PyUnicode_GET_LENGTH(text);
    if (k == 0)
        return PyList_New(0);
    d->content_len += k;
    d->text_chars += k;
    return one(new_event(TextDelta_t, &text_descr, &text, 1));
}

/* The chunk is the next raw delta of the open action's params: [ActionArgsDelta]. */
static PyObject *
args_events(Direct *d, PyObject *chunk, int changed)
{
    PyObject *value = PyObject_GetAttr(d->core, s_value);
    if (value == NULL)
        return NULL;
    PyObject *last = PySequence_GetItem(value, -1);
    Py_DECREF(value);
    if (last == NULL)
        return NULL;
    PyObject *args = PyObject_GetItem(last, d->args_key);
    Py_DECREF(last);
    if (args == NULL)
        return NULL;
    PyObject *grown = PyLong_FromSsize_t(PyUnicode_GET_LENGTH(chunk));
    if (grown == NULL) {
        Py_DECREF(args);
        return NULL;
    }
    PyObject *call[5] = {d->snaps, args, grown, Py_False, changed ? Py_True : Py_False};
    PyObject *partial =
        PyObject_VectorcallMethod(s_take, call, 5 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    Py_DECREF(grown);
    Py_DECREF(args);
    if (partial == NULL)
        return NULL;
    PyObject *descrs[4] = {id_descr, index_descr, partial_descr, delta_descr};
    PyObject *values[4] = {d->event_id, d->index, partial, chunk};
    PyObject *out = one(new_event(ArgsDelta_t, descrs, values, 4));
    Py_DECREF(partial);
    return out;
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
    if (PyUnicode_FindChar(chunk, '{', 0, n, 1) != -1 || PyUnicode_FindChar(chunk, '}', 0, n, 1) != -1)
        Py_RETURN_NONE;
    if (d->fed - d->base > d->trim && trim_kept(d) < 0)
        return NULL;
    if (PyList_Append(d->chunks, chunk) < 0)
        return NULL;
    d->fed += n;
    PyObject *events = PyObject_CallOneArg(d->feed, chunk);
    if (events == NULL)
        return NULL;
    if (!PyList_CheckExact(events)) {
        Py_DECREF(events);
        PyErr_SetString(PyExc_TypeError, "feed_events did not return a list");
        return NULL;
    }
    PyObject *out = text_events(d, events);
    if (out == NULL && !PyErr_Occurred()) {
        if (d->args_key != NULL)
            out = args_events(d, chunk, PyList_GET_SIZE(events) != 0);
        else if (PyList_GET_SIZE(events) == 0 && d->quiet)
            out = PyList_New(0); /* between values (a key, a split escape) */
        else
            out = PyTuple_Pack(1, events); /* the item tracker takes over */
    }
    Py_DECREF(events);
    return out;
}

static PyObject *
direct_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *feed, *core, *chunks, *text_path, *action;
    Py_ssize_t fed, base, keep, trim;
    int quiet;
    static char *names[] = {"feed_events", "core", "chunks", "fed", "base", "keep",
                            "trim", "text_path", "action", "quiet", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO!nnnnOOp:Direct", names, &feed, &core,
                                     &PyList_Type, &chunks, &fed, &base, &keep, &trim,
                                     &text_path, &action, &quiet))
        return NULL;
    PyObject *args_key = NULL, *snaps = NULL, *event_id = NULL, *index = NULL;
    if (action != Py_None) {
        /* (params key, snapshots, event id, action index) */
        if (!PyArg_ParseTuple(action, "OOOO:Direct action", &args_key, &snaps, &event_id, &index))
            return NULL;
    }
    if (!PyCallable_Check(feed) || keep < 0 || trim < keep) {
        PyErr_SetString(PyExc_ValueError, "Direct: bad feed_events, keep or trim");
        return NULL;
    }
    Direct *d = (Direct *)type->tp_alloc(type, 0);
    if (d == NULL)
        return NULL;
    d->vectorcall = direct_call;
    d->feed = Py_NewRef(feed);
    d->core = Py_NewRef(core);
    d->chunks = Py_NewRef(chunks);
    d->fed = fed;
    d->base = base;
    d->keep = keep;
    d->trim = trim;
    d->text_path = text_path == Py_None ? NULL : Py_NewRef(text_path);
    d->args_key = Py_XNewRef(args_key);
    d->snaps = Py_XNewRef(snaps);
    d->event_id = Py_XNewRef(event_id);
    d->index = Py_XNewRef(index);
    d->quiet = quiet;
    return (PyObject *)d;
}

static int
direct_traverse(Direct *d, visitproc visit, void *arg)
{
    Py_VISIT(d->feed);
    Py_VISIT(d->core);
    Py_VISIT(d->chunks);
    Py_VISIT(d->text_path);
    Py_VISIT(d->args_key);
    Py_VISIT(d->snaps);
    Py_VISIT(d->event_id);
    Py_VISIT(d->index);
    return 0;
}

static int
direct_clear(Direct *d)
{
    Py_CLEAR(d->feed);
    Py_CLEAR(d->core);
    Py_CLEAR(d->chunks);
    Py_CLEAR(d->text_path);
    Py_CLEAR(d->args_key);
    Py_CLEAR(d->snaps);
    Py_CLEAR(d->event_id);
    Py_CLEAR(d->index);
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
    {"base", T_PYSSIZET, offsetof(Direct, base), READONLY, "array offset of the text kept"},
    {"content_len", T_PYSSIZET, offsetof(Direct, content_len), READONLY,
     "characters the text item's TextDeltas carried here"},
    {"text_chars", T_PYSSIZET, offsetof(Direct, text_chars), READONLY,
     "characters of text shown here"},
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

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *starts;      /* where a delimiter may begin in a chunk: a regex's search */
    int reasoning;         /* inside <think>: the text is ReasoningDelta */
    Py_ssize_t lag;        /* characters taken (read back as TagParser._lag) */
    Py_ssize_t text_chars; /* characters of text shown (read back as text_chars) */
} TextRun;

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
    PyObject *found = PyObject_CallOneArg(t->starts, chunk);
    if (found == NULL)
        return NULL;
    Py_DECREF(found);
    if (found != Py_None)
        Py_RETURN_NONE;
    Py_ssize_t n = PyUnicode_GET_LENGTH(chunk);
    t->lag += n;
    if (n == 0)
        return PyList_New(0);
    if (t->reasoning)
        return one(new_event(ReasoningDelta_t, &reasoning_descr, &chunk, 1));
    t->text_chars += n;
    return one(new_event(TextDelta_t, &text_descr, &chunk, 1));
}

static PyObject *
text_run_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *starts;
    int reasoning;
    static char *names[] = {"starts", "reasoning", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Op:TextRun", names, &starts, &reasoning))
        return NULL;
    if (!PyCallable_Check(starts)) {
        PyErr_SetString(PyExc_TypeError, "TextRun: starts must be callable");
        return NULL;
    }
    TextRun *t = (TextRun *)type->tp_alloc(type, 0);
    if (t == NULL)
        return NULL;
    t->vectorcall = text_run_call;
    t->starts = Py_NewRef(starts);
    t->reasoning = reasoning;
    return (PyObject *)t;
}

static int
text_run_traverse(TextRun *t, visitproc visit, void *arg)
{
    Py_VISIT(t->starts);
    return 0;
}

static int
text_run_clear(TextRun *t)
{
    Py_CLEAR(t->starts);
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
    PyObject *sd, *td, *ad, *rd;
    if (!PyArg_ParseTuple(args, "O!O!O!O!:configure", &PyType_Type, &sd, &PyType_Type, &td,
                          &PyType_Type, &ad, &PyType_Type, &rd))
        return NULL;
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
     "configure(StringDelta, TextDelta, ActionArgsDelta, ReasoningDelta): the event types."},
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
        (s_empty = PyTuple_New(0)) == NULL || PyType_Ready(&DirectType) < 0 ||
        PyType_Ready(&TextRunType) < 0)
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
    return m;
}

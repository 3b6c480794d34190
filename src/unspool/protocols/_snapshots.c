/* The C form of unspool.protocols._args_snapshot: ArgsSnapshots.take, its common case
 * (_quick / _quick_kid) and its general case (_snapshot), over C nodes (Node, which
 * the Python code makes too when this module is built: args_snapshot._new_node).
 * The Python code stays the reference (tests/protocols/test_args_snapshots.py holds the two
 * together).  The general case recurses here up to SNAP_DEPTH containers deep;
 * deeper values go to the Python _snapshot (an explicit stack), given by configure().
 *
 * Why in C: a protocol takes a snapshot on every argument chunk, and in Python the
 * bookkeeping (1-2 µs, more when a container opens) was a quarter of
 * InterleavedParser's and TagParser's time.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#define REFRESH 128     /* ArgsSnapshots.REFRESH */
#define QUICK_DEPTH 100 /* args_snapshot._QUICK_DEPTH */
#define SNAP_DEPTH 200  /* deeper, the general case runs in Python */

static PyObject *snapshot_fn; /* args_snapshot._snapshot(src, node) -> (copy, node) */

/* ------------------------------------------------------------------ nodes */

/* What the previous snapshot knew about one open container (args_snapshot._Node). */
typedef struct {
    PyObject_HEAD
    PyObject *src;  /* the live container (kept alive, so identities stay meaningful) */
    PyObject *seen; /* a list's (length, last item); an object's values, in order */
    PyObject *copy; /* the snapshot given out */
    PyObject *kids; /* dict: key or index -> the node of a child that may be open */
} Node;

static PyTypeObject NodeType;

static PyObject *
node_make(PyObject *src, PyObject *seen, PyObject *copy, PyObject *kids)
{
    Node *n = PyObject_GC_New(Node, &NodeType);
    if (n == NULL)
        return NULL;
    Py_INCREF(src);
    Py_INCREF(seen);
    Py_INCREF(copy);
    Py_INCREF(kids);
    n->src = src;
    n->seen = seen;
    n->copy = copy;
    n->kids = kids;
    PyObject_GC_Track(n);
    return (PyObject *)n;
}

static PyObject *
node_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *src, *seen, *copy, *kids;
    static char *names[] = {"src", "seen", "copy", "kids", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOO!:Node", names, &src, &seen, &copy,
                                     &PyDict_Type, &kids))
        return NULL;
    return node_make(src, seen, copy, kids);
}

static int
node_traverse(Node *self, visitproc visit, void *arg)
{
    Py_VISIT(self->src);
    Py_VISIT(self->seen);
    Py_VISIT(self->copy);
    Py_VISIT(self->kids);
    return 0;
}

static int
node_clear(Node *self)
{
    Py_CLEAR(self->src);
    Py_CLEAR(self->seen);
    Py_CLEAR(self->copy);
    Py_CLEAR(self->kids);
    return 0;
}

static void
node_dealloc(Node *self)
{
    PyObject_GC_UnTrack(self);
    node_clear(self);
    PyObject_GC_Del(self);
}

/* The fields hold NULL only after tp_clear; read them as None then. */
#define FIELD(v) ((v) ? (v) : Py_None)

static PyObject *
node_get(Node *self, void *which)
{
    PyObject *v = FIELD(*(PyObject **)((char *)self + (Py_ssize_t)which));
    Py_INCREF(v);
    return v;
}

static int
node_set(Node *self, PyObject *value, void *which)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "a node's fields cannot be deleted");
        return -1;
    }
    PyObject **slot = (PyObject **)((char *)self + (Py_ssize_t)which);
    if ((Py_ssize_t)which == offsetof(Node, kids) && !PyDict_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "a node's kids must be a dict");
        return -1;
    }
    Py_INCREF(value);
    Py_XSETREF(*slot, value);
    return 0;
}

static PyGetSetDef node_fields[] = {
    {"src", (getter)node_get, (setter)node_set, "the live container",
     (void *)offsetof(Node, src)},
    {"seen", (getter)node_get, (setter)node_set, "what was seen of it",
     (void *)offsetof(Node, seen)},
    {"copy", (getter)node_get, (setter)node_set, "the snapshot given out",
     (void *)offsetof(Node, copy)},
    {"kids", (getter)node_get, (setter)node_set, "nodes of children that may be open",
     (void *)offsetof(Node, kids)},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject NodeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unspool.protocols._snapshots.Node",
    .tp_basicsize = sizeof(Node),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Node(src, seen, copy, kids): what a snapshot knew about an open container.",
    .tp_new = node_new,
    .tp_traverse = (traverseproc)node_traverse,
    .tp_clear = (inquiry)node_clear,
    .tp_dealloc = (destructor)node_dealloc,
    .tp_getset = node_fields,
};

static int
is_container(PyObject *v)
{
    return PyDict_CheckExact(v) || PyList_CheckExact(v);
}

/* `o` as a Node, or NULL with TypeError (every node is made by node_make or by the
 * Python code through this type). */
static Node *
as_node(PyObject *o)
{
    if (Py_IS_TYPE(o, &NodeType))
        return (Node *)o;
    PyErr_SetString(PyExc_TypeError, "a snapshot node is not a _snapshots.Node");
    return NULL;
}

/* What quick(), quick_kid() and snap() end with: a result, none (the case is not
 * theirs: nothing was changed, the caller goes on another way), or an error. */
enum { Q_ERROR = -1, Q_NONE = 0, Q_DONE = 1 };

static int quick(PyObject *src, Node *node, int depth, PyObject **out);

/* A new reference to a shallow copy of a dict or list snapshot. */
static PyObject *
shallow_copy(PyObject *c)
{
    if (PyDict_CheckExact(c))
        return PyDict_Copy(c);
    if (PyList_CheckExact(c))
        return PyList_GetSlice(c, 0, PyList_GET_SIZE(c));
    PyErr_SetString(PyExc_TypeError, "a snapshot copy is not a dict or list");
    return NULL;
}

static int
give(PyObject *v, PyObject **out)
{
    Py_INCREF(v);
    *out = v;
    return Q_DONE;
}

/* _quick_kid: the container of `node` had nothing assigned since the last snapshot;
 * only its open child (at `index`, or the one followed when index is NULL) grows. */
static int
quick_kid(Node *node, PyObject *index, int depth, PyObject **out)
{
    PyObject *kids = node->kids;
    Py_ssize_t nk = PyDict_GET_SIZE(kids);
    if (nk == 0)
        return give(node->copy, out);
    if (nk != 1)
        return Q_NONE;
    Py_ssize_t pos = 0;
    PyObject *key, *kid_obj;
    PyDict_Next(kids, &pos, &key, &kid_obj);
    Node *kid = as_node(kid_obj);
    if (kid == NULL)
        return Q_ERROR;
    Py_INCREF(key);
    Py_INCREF(kid);
    int r = Q_NONE;
    PyObject *copy = NULL, *fresh = NULL;
    if (index != NULL) {
        int ne = PyObject_RichCompareBool(key, index, Py_NE);
        if (ne != 0) {
            r = ne < 0 ? Q_ERROR : Q_NONE;
            goto done;
        }
    }
    if (depth >= QUICK_DEPTH)
        goto done; /* nothing was updated yet at any level: the general case decides */
    PyObject *old = kid->copy;
    r = quick(kid->src, kid, depth + 1, &copy);
    if (r != Q_DONE)
        goto done;
    if (copy == old) {
        r = give(node->copy, out);
        goto done;
    }
    fresh = shallow_copy(node->copy);
    if (fresh == NULL || PyObject_SetItem(fresh, key, copy) < 0) {
        r = Q_ERROR;
        goto done;
    }
    Py_INCREF(fresh);
    Py_SETREF(node->copy, fresh);
    *out = fresh;
    fresh = NULL;
done:
    Py_XDECREF(fresh);
    Py_XDECREF(copy);
    Py_DECREF(kid);
    Py_DECREF(key);
    return r;
}

/* Store what `node` now knows: its container's `seen`, the new `copy`, no open kids;
 * `copy` is returned in *out. */
static int
node_update(Node *node, PyObject *seen, PyObject *copy, PyObject **out)
{
    PyObject *kids = PyDict_New();
    if (kids == NULL)
        return Q_ERROR;
    Py_INCREF(seen);
    Py_SETREF(node->seen, seen);
    Py_INCREF(copy);
    Py_SETREF(node->copy, copy);
    Py_SETREF(node->kids, kids);
    return give(copy, out);
}

static int
quick_dict(PyObject *src, Node *node, int depth, PyObject **out)
{
    PyObject *before = node->seen;
    if (!PyList_Check(before))
        return Q_NONE;
    Py_ssize_t m = PyList_GET_SIZE(before), nv = PyDict_GET_SIZE(src);
    if (m == 0)
        return nv == 0 ? give(node->copy, out) : Q_NONE;
    if (nv < m)
        return Q_NONE; /* an object never shrinks: the general case decides */
    PyObject *vals = PyDict_Values(src);
    if (vals == NULL)
        return Q_ERROR;
    int r = Q_NONE;
    for (Py_ssize_t i = 0; i < m - 1; i++) {
        if (PyList_GET_ITEM(vals, i) != PyList_GET_ITEM(before, i))
            goto done; /* an earlier value was replaced: a duplicate key */
    }
    Py_ssize_t tail = m - 1; /* the last value was replaced, and maybe values added */
    if (PyList_GET_ITEM(vals, m - 1) == PyList_GET_ITEM(before, m - 1)) {
        if (nv == m) {
            r = quick_kid(node, NULL, depth, out);
            goto done;
        }
        tail = m; /* new values only */
    }
    for (Py_ssize_t i = tail; i < nv; i++) {
        if (is_container(PyList_GET_ITEM(vals, i)))
            goto done;
    }
    PyObject *copy = PyDict_Copy(src);
    if (copy == NULL) {
        r = Q_ERROR;
        goto done;
    }
    r = node_update(node, vals, copy, out);
    Py_DECREF(copy);
done:
    Py_DECREF(vals);
    return r;
}

static int
quick_list(PyObject *src, Node *node, int depth, PyObject **out)
{
    Py_ssize_t n = PyList_GET_SIZE(src);
    PyObject *last = n ? PyList_GET_ITEM(src, n - 1) : Py_None;
    PyObject *seen = node->seen;
    if (!PyTuple_Check(seen) || PyTuple_GET_SIZE(seen) != 2)
        return Q_NONE;
    Py_ssize_t seen_n = PyLong_AsSsize_t(PyTuple_GET_ITEM(seen, 0));
    if (seen_n == -1 && PyErr_Occurred())
        return Q_ERROR;
    if (seen_n == n && PyTuple_GET_ITEM(seen, 1) == last) {
        /* no item added or replaced: only the last one, if open, may have grown */
        PyObject *index = PyLong_FromSsize_t(n - 1);
        if (index == NULL)
            return Q_ERROR;
        int r = quick_kid(node, index, depth, out);
        Py_DECREF(index);
        return r;
    }
    if (is_container(last))
        return Q_NONE;
    PyObject *copy = PyList_GetSlice(src, 0, n);
    PyObject *count = PyLong_FromSsize_t(n);
    PyObject *vals = count && copy ? PyTuple_Pack(2, count, last) : NULL;
    int r = vals == NULL ? Q_ERROR : node_update(node, vals, copy, out);
    Py_XDECREF(vals);
    Py_XDECREF(count);
    Py_XDECREF(copy);
    return r;
}

/* _quick: the common snapshots (the container unchanged but for its one open child,
 * or changed only in its last value or by new values none of which is a container),
 * updating `node` in place; Q_NONE with nothing updated otherwise. */
static int
quick(PyObject *src, Node *node, int depth, PyObject **out)
{
    if (PyDict_CheckExact(src))
        return quick_dict(src, node, depth, out);
    if (PyList_CheckExact(src))
        return quick_list(src, node, depth, out);
    return Q_NONE;
}

/* ------------------------------------------------------------------ the general case */

/* _snap: snapshot the container `src` given what `node` (about the same src, or NULL)
 * knew; a new copy and node in *copy and *made.  Old nodes are never changed, so
 * Q_NONE (too deep) leaves everything as it was. */
static int snap(PyObject *src, Node *node, int depth, PyObject **copy, PyObject **made);

/* _follow: the child container src[key] (given as `child`), with its node in `old` if
 * that node is about the same child. */
static int
follow(PyObject *child, PyObject *key, PyObject *old, int depth, PyObject **copy,
       PyObject **made)
{
    PyObject *kid_obj = PyDict_GetItemWithError(old, key);
    if (kid_obj == NULL && PyErr_Occurred())
        return Q_ERROR;
    Node *kid = NULL;
    if (kid_obj != NULL) {
        kid = as_node(kid_obj);
        if (kid == NULL)
            return Q_ERROR;
        if (kid->src != child)
            kid = NULL;
    }
    return snap(child, kid, depth + 1, copy, made);
}

static int
snap_list(PyObject *src, Node *node, int depth, PyObject **copy, PyObject **made)
{
    Py_ssize_t n = PyList_GET_SIZE(src);
    PyObject *last = n ? PyList_GET_ITEM(src, n - 1) : Py_None;
    PyObject *kids = PyDict_New(), *out = NULL, *seen = NULL, *index = NULL;
    PyObject *kcopy = NULL, *kmade = NULL;
    int r = Q_ERROR;
    if (kids == NULL || (index = PyLong_FromSsize_t(n - 1)) == NULL)
        goto done;
    Py_INCREF(last);
    if (node != NULL) {
        PyObject *s = node->seen;
        int same = 0;
        if (PyTuple_Check(s) && PyTuple_GET_SIZE(s) == 2 && PyTuple_GET_ITEM(s, 1) == last) {
            Py_ssize_t seen_n = PyLong_AsSsize_t(PyTuple_GET_ITEM(s, 0));
            if (seen_n == -1 && PyErr_Occurred())
                goto done_last;
            same = seen_n == n;
        }
        if (same) {
            /* no item added or replaced: only the last one, if open, may have grown */
            PyObject *kid_obj = PyDict_GetItemWithError(node->kids, index);
            if (kid_obj == NULL) {
                if (PyErr_Occurred())
                    goto done_last;
                *copy = Py_NewRef(node->copy);
                *made = Py_NewRef((PyObject *)node);
                r = Q_DONE;
                goto done_last;
            }
            Node *kid = as_node(kid_obj);
            if (kid == NULL)
                goto done_last;
            if (n == 0) {
                r = Q_NONE; /* not a state the parser makes: the Python code decides */
                goto done_last;
            }
            Py_INCREF(kid);
            r = snap(last, kid, depth + 1, &kcopy, &kmade);
            PyObject *old = kid->copy;
            Py_DECREF(kid);
            if (r != Q_DONE)
                goto done_last;
            r = Q_ERROR;
            if (PyDict_SetItem(kids, index, kmade) < 0)
                goto done_last;
            if (kcopy == old) {
                *copy = Py_NewRef(node->copy);
                *made = Py_NewRef((PyObject *)node);
                r = Q_DONE;
                goto done_last;
            }
            out = PyList_GetSlice(src, 0, n);
            if (out == NULL || PyList_SetItem(out, n - 1, Py_NewRef(kcopy)) < 0)
                goto done_last;
            *made = node_make(src, node->seen, out, kids);
            if (*made == NULL)
                goto done_last;
            *copy = Py_NewRef(out);
            r = Q_DONE;
            goto done_last;
        }
    }
    out = PyList_GetSlice(src, 0, n); /* every item but the last is closed: shared */
    if (out == NULL)
        goto done_last;
    if (is_container(last)) {
        PyObject *old = node == NULL ? NULL : node->kids;
        PyObject *none = NULL;
        if (old == NULL && (old = none = PyDict_New()) == NULL)
            goto done_last;
        r = follow(last, index, old, depth, &kcopy, &kmade);
        Py_XDECREF(none);
        if (r != Q_DONE)
            goto done_last;
        r = Q_ERROR;
        if (PyList_SetItem(out, n - 1, Py_NewRef(kcopy)) < 0 ||
            PyDict_SetItem(kids, index, kmade) < 0)
            goto done_last;
    }
    seen = PyTuple_New(2);
    if (seen == NULL)
        goto done_last;
    PyTuple_SET_ITEM(seen, 0, PyLong_FromSsize_t(n));
    PyTuple_SET_ITEM(seen, 1, Py_NewRef(last));
    if (PyTuple_GET_ITEM(seen, 0) == NULL)
        goto done_last;
    *made = node_make(src, seen, out, kids);
    if (*made == NULL)
        goto done_last;
    *copy = Py_NewRef(out);
    r = Q_DONE;
done_last:
    Py_DECREF(last);
done:
    Py_XDECREF(kcopy);
    Py_XDECREF(kmade);
    Py_XDECREF(seen);
    Py_XDECREF(out);
    Py_XDECREF(index);
    Py_XDECREF(kids);
    return r;
}

/* _same_dict: no value assigned since the last snapshot: follow the same open kids. */
static int
same_dict(PyObject *src, Node *node, int depth, PyObject **copy, PyObject **made)
{
    PyObject *kids = PyDict_New(), *copies = PyDict_New(), *old_kids = node->kids;
    PyObject *out = NULL;
    int r = Q_ERROR;
    if (kids == NULL || copies == NULL)
        goto done;
    Py_INCREF(old_kids);
    Py_ssize_t pos = 0;
    PyObject *key, *kid_obj;
    r = Q_DONE;
    while (r == Q_DONE && PyDict_Next(old_kids, &pos, &key, &kid_obj)) {
        Node *kid = as_node(kid_obj);
        if (kid == NULL) {
            r = Q_ERROR;
            break;
        }
        PyObject *kcopy = NULL, *kmade = NULL;
        r = snap(kid->src, kid, depth + 1, &kcopy, &kmade);
        if (r == Q_DONE && (PyDict_SetItem(kids, key, kmade) < 0 ||
                            (kcopy != kid->copy && PyDict_SetItem(copies, key, kcopy) < 0)))
            r = Q_ERROR;
        Py_XDECREF(kcopy);
        Py_XDECREF(kmade);
    }
    Py_DECREF(old_kids);
    if (r != Q_DONE)
        goto done;
    if (PyDict_GET_SIZE(copies) == 0) {
        *copy = Py_NewRef(node->copy);
        *made = Py_NewRef((PyObject *)node);
        goto done;
    }
    r = Q_ERROR;
    out = shallow_copy(node->copy);
    if (out == NULL || PyDict_Update(out, copies) < 0)
        goto done;
    *made = node_make(src, node->seen, out, kids);
    if (*made == NULL)
        goto done;
    *copy = Py_NewRef(out);
    r = Q_DONE;
done:
    Py_XDECREF(out);
    Py_XDECREF(copies);
    Py_XDECREF(kids);
    return r;
}

/* Which values of an object a general snapshot follows (see _snap_dict). */
enum { FROM_INDEX, CHANGED_SINCE };

/* _dict_copy: copy `src` (values `vals`), following each container value picked by
 * `rule` (from index `from`, or: new or replaced since `before`). */
static int
dict_copy(PyObject *src, PyObject *vals, int rule, Py_ssize_t from, PyObject *before,
          PyObject *old, int depth, PyObject **copy, PyObject **made)
{
    PyObject *out = PyDict_Copy(src), *kids = PyDict_New();
    int r = Q_ERROR;
    if (out == NULL || kids == NULL)
        goto done;
    Py_ssize_t pos = 0, i = 0, m = before ? PyList_GET_SIZE(before) : 0;
    PyObject *key, *value;
    r = Q_DONE;
    for (; PyDict_Next(src, &pos, &key, &value); i++) {
        if (!is_container(value))
            continue;
        if (rule == FROM_INDEX ? i < from
                               : (i < m && value == PyList_GET_ITEM(before, i)))
            continue;
        PyObject *kcopy = NULL, *kmade = NULL;
        Py_INCREF(key);
        Py_INCREF(value);
        r = follow(value, key, old, depth, &kcopy, &kmade);
        if (r == Q_DONE && (PyDict_SetItem(out, key, kcopy) < 0 ||
                            PyDict_SetItem(kids, key, kmade) < 0))
            r = Q_ERROR;
        Py_XDECREF(kcopy);
        Py_XDECREF(kmade);
        Py_DECREF(value);
        Py_DECREF(key);
        if (r != Q_DONE)
            goto done;
    }
    *made = node_make(src, vals, out, kids);
    if (*made == NULL) {
        r = Q_ERROR;
        goto done;
    }
    *copy = Py_NewRef(out);
done:
    Py_XDECREF(kids);
    Py_XDECREF(out);
    return r;
}

static int
snap_dict(PyObject *src, Node *node, int depth, PyObject **copy, PyObject **made)
{
    PyObject *vals = PyDict_Values(src);
    if (vals == NULL)
        return Q_ERROR;
    int r;
    if (node == NULL) {
        /* new since the last snapshot: any container in it may be the open one */
        PyObject *none = PyDict_New();
        r = none == NULL ? Q_ERROR
                         : dict_copy(src, vals, FROM_INDEX, 0, NULL, none, depth, copy, made);
        Py_XDECREF(none);
        Py_DECREF(vals);
        return r;
    }
    PyObject *before = node->seen;
    Py_ssize_t nv = PyList_GET_SIZE(vals);
    if (!PyList_Check(before) || nv < PyList_GET_SIZE(before)) {
        Py_DECREF(vals);
        return Q_NONE; /* not a state the parser makes: the Python code decides */
    }
    Py_INCREF(before);
    Py_ssize_t m = PyList_GET_SIZE(before);
    int prefix_same = 1; /* the first m - 1 values are the same objects */
    for (Py_ssize_t i = 0; i < m - 1 && prefix_same; i++)
        prefix_same = PyList_GET_ITEM(vals, i) == PyList_GET_ITEM(before, i);
    if (m == 0 && nv == 0) {
        *copy = Py_NewRef(node->copy); /* still empty */
        *made = Py_NewRef((PyObject *)node);
        r = Q_DONE;
    }
    else if (m && prefix_same && PyList_GET_ITEM(vals, m - 1) == PyList_GET_ITEM(before, m - 1)) {
        if (nv == m)
            r = same_dict(src, node, depth, copy, made);
        else /* new keys only: the open value is among them */
            r = dict_copy(src, vals, FROM_INDEX, m, NULL, node->kids, depth, copy, made);
    }
    else if (!m || prefix_same) /* the last value was replaced, and maybe keys added */
        r = dict_copy(src, vals, FROM_INDEX, m ? m - 1 : 0, NULL, node->kids, depth, copy, made);
    else /* an earlier value was replaced: a duplicate key */
        r = dict_copy(src, vals, CHANGED_SINCE, 0, before, node->kids, depth, copy, made);
    Py_DECREF(before);
    Py_DECREF(vals);
    return r;
}

static int
snap(PyObject *src, Node *node, int depth, PyObject **copy, PyObject **made)
{
    if (depth >= SNAP_DEPTH)
        return Q_NONE;
    if (PyList_CheckExact(src))
        return snap_list(src, node, depth, copy, made);
    if (PyDict_CheckExact(src))
        return snap_dict(src, node, depth, copy, made);
    PyErr_SetString(PyExc_TypeError, "a snapshot's container is not a dict or list");
    return Q_ERROR;
}

/* ------------------------------------------------------------------ the type */

typedef struct {
    PyObject_HEAD
    PyObject *root;  /* the Node of the last snapshot's root container, or NULL */
    PyObject *last;  /* the last snapshot given out, or NULL (None) */
    int exact;       /* last shows the live value as it was at the last call */
    long long total; /* characters of argument text seen */
    long long at;    /* ... when the last snapshot was taken */
} Snaps;

static PyObject *
give_last(Snaps *self)
{
    PyObject *v = self->last ? self->last : Py_None;
    Py_INCREF(v);
    return v;
}

/* Store `copy` as the last snapshot and return it (a new reference). */
static PyObject *
given(Snaps *self, PyObject *copy)
{
    Py_INCREF(copy);
    Py_XSETREF(self->last, copy);
    self->at = self->total;
    self->exact = 1;
    Py_INCREF(copy);
    return copy;
}

/* The general case: snap(), or args_snapshot._snapshot(live, node) for values
 * nested deeper than SNAP_DEPTH; the new root node is kept. */
static PyObject *
general(Snaps *self, PyObject *live, Node *node)
{
    PyObject *copy = NULL, *made = NULL;
    int r = snap(live, node, 0, &copy, &made);
    if (r == Q_ERROR)
        return NULL;
    if (r == Q_NONE) {
        if (snapshot_fn == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "_snapshots.configure() was not called");
            return NULL;
        }
        PyObject *res = PyObject_CallFunctionObjArgs(
            snapshot_fn, live, node ? (PyObject *)node : Py_None, NULL);
        if (res == NULL)
            return NULL;
        if (!PyTuple_Check(res) || PyTuple_GET_SIZE(res) != 2 ||
            !Py_IS_TYPE(PyTuple_GET_ITEM(res, 1), &NodeType)) {
            Py_DECREF(res);
            PyErr_SetString(PyExc_TypeError, "_snapshot must return (copy, Node)");
            return NULL;
        }
        copy = Py_NewRef(PyTuple_GET_ITEM(res, 0));
        made = Py_NewRef(PyTuple_GET_ITEM(res, 1));
        Py_DECREF(res);
    }
    Py_XSETREF(self->root, made);
    PyObject *out = given(self, copy);
    Py_DECREF(copy);
    return out;
}

static PyObject *
snaps_take_impl(Snaps *self, PyObject *live, long long grown, int final, int changed)
{
    long long total = self->total + grown;
    self->total = total;
    Node *node = (Node *)self->root;
    if (node != NULL && node->src == live) {
        int little = (total - self->at) * REFRESH < total;
        if (!changed && self->exact) {
            if (final || !little)
                self->at = total; /* a new snapshot would have been this one */
            return give_last(self);
        }
        if (!final && little) {
            self->exact = self->exact && !changed;
            return give_last(self);
        }
        Py_INCREF(node);
        PyObject *copy = NULL, *out = NULL;
        int r = quick(live, node, 0, &copy);
        if (r == Q_DONE) {
            out = given(self, copy);
            Py_DECREF(copy);
        }
        else if (r == Q_NONE)
            out = general(self, live, node);
        Py_DECREF(node);
        return out;
    }
    if (!is_container(live)) {
        Py_CLEAR(self->root);
        if (PyUnicode_CheckExact(live) && !final) {
            /* a root string in flight: the refresh rule keeps the copying linear */
            if (self->last && PyUnicode_CheckExact(self->last) &&
                (total - self->at) * REFRESH < total)
                return give_last(self);
            Py_INCREF(live);
            Py_XSETREF(self->last, live);
            self->at = total;
        }
        Py_INCREF(live);
        return live;
    }
    return general(self, live, NULL);
}

static const char *const take_names[] = {"live", "grown", "final", "changed"};

static PyObject *
snaps_take(Snaps *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *given_args[4] = {NULL, NULL, NULL, NULL};
    if (nargs > 4) {
        PyErr_Format(PyExc_TypeError, "take() takes at most 4 arguments (%zd given)", nargs);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        given_args[i] = args[i];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        int slot = -1;
        for (int j = 0; j < 4; j++) {
            if (PyUnicode_CompareWithASCIIString(name, take_names[j]) == 0)
                slot = j;
        }
        if (slot < 0) {
            PyErr_Format(PyExc_TypeError, "take() got an unexpected keyword argument '%U'", name);
            return NULL;
        }
        if (given_args[slot] != NULL) {
            PyErr_Format(PyExc_TypeError, "take() got multiple values for argument '%U'", name);
            return NULL;
        }
        given_args[slot] = args[nargs + k];
    }
    if (given_args[0] == NULL || given_args[1] == NULL) {
        PyErr_SetString(PyExc_TypeError, "take() needs live and grown");
        return NULL;
    }
    long long grown = PyLong_AsLongLong(given_args[1]);
    if (grown == -1 && PyErr_Occurred())
        return NULL;
    int final = given_args[2] ? PyObject_IsTrue(given_args[2]) : 0;
    int changed = given_args[3] ? PyObject_IsTrue(given_args[3]) : 1;
    if (final < 0 || changed < 0)
        return NULL;
    return snaps_take_impl(self, given_args[0], grown, final, changed);
}

static PyObject *
snaps_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    if ((args && PyTuple_GET_SIZE(args)) || (kwds && PyDict_GET_SIZE(kwds))) {
        PyErr_SetString(PyExc_TypeError, "ArgsSnapshots() takes no arguments");
        return NULL;
    }
    Snaps *self = (Snaps *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->root = NULL;
    self->last = NULL;
    self->exact = 0;
    self->total = 0;
    self->at = -1;
    return (PyObject *)self;
}

static int
snaps_traverse(Snaps *self, visitproc visit, void *arg)
{
    Py_VISIT(self->root);
    Py_VISIT(self->last);
    return 0;
}

static int
snaps_clear(Snaps *self)
{
    Py_CLEAR(self->root);
    Py_CLEAR(self->last);
    return 0;
}

static void
snaps_dealloc(Snaps *self)
{
    PyObject_GC_UnTrack(self);
    snaps_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef snaps_methods[] = {
    {"take", (PyCFunction)(void (*)(void))snaps_take, METH_FASTCALL | METH_KEYWORDS,
     "take(live, grown, final=False, changed=True): see args_snapshot.ArgsSnapshots.take."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SnapsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unspool.protocols._snapshots.ArgsSnapshots",
    .tp_basicsize = sizeof(Snaps),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Successive snapshots of one live value (C form of args_snapshot.ArgsSnapshots).",
    .tp_new = snaps_new,
    .tp_traverse = (traverseproc)snaps_traverse,
    .tp_clear = (inquiry)snaps_clear,
    .tp_dealloc = (destructor)snaps_dealloc,
    .tp_methods = snaps_methods,
};

/* ------------------------------------------------------------------ module */

static PyObject *
configure(PyObject *module, PyObject *fn)
{
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "configure() needs the Python _snapshot function");
        return NULL;
    }
    Py_INCREF(fn);
    Py_XSETREF(snapshot_fn, fn);
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"configure", configure, METH_O, "configure(_snapshot): the general case's Python function."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_snapshots",
    "C form of the argument snapshots (see args_snapshot.py).", -1, module_methods,
};

PyMODINIT_FUNC
PyInit__snapshots(void)
{
    if (PyType_Ready(&SnapsType) < 0 || PyType_Ready(&NodeType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    Py_INCREF(&SnapsType);
    if (PyModule_AddObject(m, "ArgsSnapshots", (PyObject *)&SnapsType) < 0) {
        Py_DECREF(&SnapsType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&NodeType);
    if (PyModule_AddObject(m, "Node", (PyObject *)&NodeType) < 0) {
        Py_DECREF(&NodeType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

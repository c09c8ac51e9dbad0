/* The common case of FeatureSpace.encode in one C pass over the feature dict.
 *
 * encode_plain(x, index, columns, values, intercept) -> int
 *
 * Writes, in the iteration order of ``x``, the column ``index[name]`` and the value of every
 * non-zero feature (a zero is dropped, its name not looked up, as the checked path drops it) into the int64 buffer ``columns`` and the float64 buffer ``values`` (numpy arrays of at
 * least len(x) + intercept items), then column 0 with value 1.0 if ``intercept``, and returns the
 * number of items written. It declines, returning -1 with nothing to clean up, as soon as the
 * sample needs the checked Python path (features.py, FeatureSpace._encode_checked): a name not in
 * ``index``, an empty dict (or one of zeros only), a value that is not exactly a float or an int, an int beyond
 * the float range, NaN, an infinity or a magnitude beyond ENCODE_MAX_ABS (features.MAX_ABS_VALUE, exported as
 * ``MAX_ABS`` so that features.py uses a build only if it enforces the same limit). It never raises for the sample's content: the checked path decides, and names
 * the feature in its error. Both paths give identical arrays (tests/test_features.py).
 *
 * Why C: validating and mapping a sparse dict costs more than the numba update it feeds (about
 * 3 us of an ACOG-diag round in Python on a9a), and River's own linear models walk their dicts in
 * compiled code. The module is optional (setup.py builds it with optional=True); without it
 * features.py runs the same checks in Python.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>

#define ENCODE_MAX_ABS 1e15 /* features.MAX_ABS_VALUE */

static int
get_buffer(PyObject *array, Py_buffer *view, const char *kinds, const char *what)
{
    if (PyObject_GetBuffer(array, view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    const char *format = view->format ? view->format : "B";
    if (format[0] == '<' || format[0] == '=' || format[0] == '@')
        format++;
    if (view->itemsize != 8 || strlen(format) != 1 || strchr(kinds, format[0]) == NULL) {
        PyErr_Format(PyExc_TypeError, "encode_plain: %s must be a contiguous %s array",
                     what, kinds[0] == 'd' ? "float64" : "int64");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *
encode_plain(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "encode_plain(x, index, columns, values, intercept)");
        return NULL;
    }
    PyObject *x = args[0], *index = args[1];
    if (!PyDict_Check(x) || !PyDict_Check(index)) {
        PyErr_SetString(PyExc_TypeError, "encode_plain: x and index must be dicts");
        return NULL;
    }
    int intercept = PyObject_IsTrue(args[4]);
    if (intercept < 0)
        return NULL;

    Py_buffer column_view, value_view;
    if (get_buffer(args[2], &column_view, "lq", "columns") < 0)
        return NULL;
    if (get_buffer(args[3], &value_view, "d", "values") < 0) {
        PyBuffer_Release(&column_view);
        return NULL;
    }
    Py_ssize_t n_items = PyDict_GET_SIZE(x);
    Py_ssize_t written = -1; /* -1: declined */
    if (n_items == 0) /* the checked path documents what an empty sample means */
        goto done;
    if (column_view.len / 8 < n_items + intercept || value_view.len / 8 < n_items + intercept) {
        PyErr_SetString(PyExc_ValueError, "encode_plain: output arrays are too short");
        goto fail;
    }
    long long *columns = (long long *)column_view.buf;
    double *values = (double *)value_view.buf;

    Py_ssize_t position = 0, k = 0, seen = 0;
    PyObject *name, *raw;
    while (PyDict_Next(x, &position, &name, &raw)) {
        seen++;
        double value;
        if (PyFloat_CheckExact(raw)) {
            value = PyFloat_AS_DOUBLE(raw);
        }
        else if (PyLong_CheckExact(raw)) {
            value = PyLong_AsDouble(raw);
            if (value == -1.0 && PyErr_Occurred()) {
                PyErr_Clear(); /* beyond the float range: the checked path names it */
                goto done;
            }
        }
        else {
            goto done;
        }
        if (!(fabs(value) <= ENCODE_MAX_ABS)) /* also NaN and infinities */
            goto done;
        if (value == 0.0) /* dropped, before its name is looked up, as the checked path does */
            continue;
        /* A key's __eq__ may run Python code; hold the key while it does. */
        Py_INCREF(name);
        PyObject *column = PyDict_GetItemWithError(index, name); /* borrowed */
        Py_DECREF(name);
        if (column == NULL) {
            if (PyErr_Occurred())
                goto fail;
            goto done; /* a name not seen before */
        }
        long long column_number = PyLong_AsLongLong(column);
        if (column_number == -1 && PyErr_Occurred())
            goto fail;
        columns[k] = column_number;
        values[k] = value;
        k++;
    }
    if (seen != n_items || PyDict_GET_SIZE(x) != n_items) /* the dict changed under us (a key's
                                                             __eq__ mutated it) */
        goto done;
    if (k == 0 && !intercept) /* only zeros: the checked path documents an empty sample */
        goto done;
    if (intercept) {
        columns[k] = 0;
        values[k] = 1.0;
        k++;
    }
    written = k;
done:
    PyBuffer_Release(&column_view);
    PyBuffer_Release(&value_view);
    return PyLong_FromSsize_t(written);
fail:
    PyBuffer_Release(&column_view);
    PyBuffer_Release(&value_view);
    return NULL;
}

/* dict_version(x) -> int: the version tag CPython keeps in every dict (PEP 509), which takes a
 * new value, unique in the process, at every change of the dict's content. FeatureSpace.encode
 * uses it to recall the encoding of the same dict object, unchanged, without keeping a copy
 * of the dict and comparing it with the sample (the recall of learn_one after
 * predict_proba_one; about a sixth of an ACOG-diag round on a9a). Defined only where CPython
 * keeps the tag (3.10 to 3.13, with the GIL); features.py compares copies elsewhere. */
#if PY_VERSION_HEX < 0x030E0000 && !defined(Py_GIL_DISABLED)
#define HAVE_DICT_VERSION 1
static PyObject *
dict_version(PyObject *module, PyObject *x)
{
    (void)module;
    if (!PyDict_Check(x)) {
        PyErr_SetString(PyExc_TypeError, "dict_version: x must be a dict");
        return NULL;
    }
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* deprecated (PEP 699), kept */
#endif
    unsigned long long version = ((PyDictObject *)x)->ma_version_tag;
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    return PyLong_FromUnsignedLongLong(version);
}
#endif

static PyMethodDef methods[] = {
    {"encode_plain", (PyCFunction)(void (*)(void))encode_plain, METH_FASTCALL,
     "encode_plain(x, index, columns, values, intercept) -> items written, or -1 to decline"},
#ifdef HAVE_DICT_VERSION
    {"dict_version", (PyCFunction)dict_version, METH_O,
     "dict_version(x) -> the version tag of the dict x (PEP 509)"},
#endif
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_encode",
    "Compiled common case of FeatureSpace.encode (see _encode.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__encode(void)
{
    PyObject *created = PyModule_Create(&module);
    if (created != NULL && PyModule_AddObject(created, "MAX_ABS",
                                              PyFloat_FromDouble(ENCODE_MAX_ABS)) < 0) {
        Py_DECREF(created);
        return NULL;
    }
    return created;
}

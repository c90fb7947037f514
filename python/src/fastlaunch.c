/* kiln._fastlaunch: the warm launch of one kernel for one kind of each argument, in C.
 *
 * kiln.runtime.launcher.LoadedKernel.fast_launcher generates a Python function
 * launch(gx, gy, gz, stream, *values) that checks the values, packs the argument buffer,
 * asks torch for the current stream and calls kiln_rt_launch through ctypes. A Launcher
 * does the same work here for the argument kinds whose checks it knows (pointers, 32/64-bit
 * ints, fp32/fp64, i1, tensor descriptors, whose tensor map, shape and strides it remembers
 * for the last descriptor seen) and hands every call it is not sure of -- a value of another type or
 * out of range, a misaligned or CPU tensor, a stream that is not an int, an entry point it
 * cannot call -- to that Python function (`fallback`), unchanged, so that every error is
 * the general path's own. It holds no GPU state: the kernel's function handle is read from
 * the LoadedKernel at each call, the entry point from the runtime library's ctypes object.
 *
 * Built against CPython's stable ABI (3.8), so one build serves every CPython the wheel
 * installs on; where it does not import, the Python function is used as it is. */

#define Py_LIMITED_API 0x03080000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "fastlaunch.c writes argument slots as little-endian values"
#endif

typedef int (*launch_fn)(const char *backend, uint64_t func, unsigned gx, unsigned gy,
                         unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned cluster,
                         unsigned shared, uint64_t stream, const void *args, size_t size,
                         const uint32_t *offsets, size_t count);

enum { MAX_BYTES = 2048, MAX_ARGS = 128, MAX_RANK = 5, MAP_BYTES = 128 };

/* One kernel argument: how its value is checked and where it is written. */
typedef struct {
  char kind;           /* 'p' pointer (object, address), 'i' i32, 'I' u32, 'q' i64, 'Q' u64,
                          'f' fp32, 'd' fp64, 'b' i1, 'D' tensor descriptor */
  uint32_t offset;     /* byte offset in the argument buffer */
  uint64_t divisible;  /* pointers and ints: the value must be a multiple (0: none) */
  /* 'D': its tensor map (MAP_BYTES at offset), then rank i32 shapes and rank i64 strides at
   * these offsets; what they pack to for the last descriptor seen (a weak reference). */
  int rank;
  uint32_t sub[2 * MAX_RANK];
  PyObject *memo;
  unsigned char packed[MAP_BYTES + MAX_RANK * 4 + MAX_RANK * 8];
} Arg;

typedef struct {
  PyObject_HEAD
  PyObject *fallback;    /* the Python launcher: same signature, decides what this refuses */
  PyObject *kernel;      /* the LoadedKernel (its _function is read at each call) */
  PyObject *lib;         /* the runtime library (ctypes.CDLL) */
  PyObject *entry_obj;   /* lib.kiln_rt_launch last seen, and its address */
  launch_fn entry;
  PyObject *address_of;  /* ctypes function -> int address, or None */
  PyObject *check;       /* check(rc) raises the driver's error */
  PyObject *module_dict; /* kiln.runtime.launcher's globals (_TORCH_STREAM) */
  PyObject *default_stream;
  PyObject *tensor_type; /* torch.Tensor, or None */
  PyObject *on_cpu;      /* on_cpu(obj): the CPU test of pointer objects of other types */
  PyObject *desc_fields; /* desc_fields(obj, rank): (map bytes, shape, strides) or None */
  char backend[8];
  unsigned block[3];
  unsigned shared;
  Py_ssize_t nvalues;    /* values after (gx, gy, gz, stream) */
  Py_ssize_t nargs;      /* the kernel's parameters */
  Py_ssize_t nslots;     /* the argument buffer's entries (a descriptor has 1 + 2 rank) */
  size_t size;
  Arg args[MAX_ARGS];
  uint32_t offsets[MAX_ARGS];
} Launcher;

static PyObject *str_function, *str_is_cpu, *str_entry_name, *str_torch_stream;

/* 1: the call goes to the fallback; -1: a Python error is set. */
enum { OK = 0, REFUSE = 1, FAIL = -1 };

static int read_uint(PyObject *o, unsigned long long limit, unsigned long long *out) {
  if (!PyLong_CheckExact(o))
    return REFUSE;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(o);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) {
      PyErr_Clear();
      return REFUSE;
    }
    if (u > limit)
      return REFUSE;
    *out = u;
    return OK;
  }
  if (v == -1 && PyErr_Occurred())
    return FAIL;
  if (overflow < 0 || v < 0 || (unsigned long long)v > limit)
    return REFUSE;
  *out = (unsigned long long)v;
  return OK;
}

static int read_int(PyObject *o, long long lo, long long hi, long long *out) {
  if (!PyLong_CheckExact(o))
    return REFUSE;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (v == -1 && PyErr_Occurred())
    return FAIL;
  if (overflow || v < lo || v > hi)
    return REFUSE;
  *out = v;
  return OK;
}

/* Whether `obj` (a pointer argument) lives on the host: refused then, as the fallback's
 * checks refuse it. */
static int host_tensor(Launcher *self, PyObject *obj) {
  PyObject *flag;
  if (self->tensor_type != Py_None && (PyObject *)Py_TYPE(obj) == self->tensor_type)
    flag = PyObject_GetAttr(obj, str_is_cpu);
  else
    flag = PyObject_CallFunctionObjArgs(self->on_cpu, obj, NULL);
  if (!flag)
    return FAIL;
  int t = PyObject_IsTrue(flag);
  Py_DECREF(flag);
  return t < 0 ? FAIL : t ? REFUSE : OK;
}

/* The current stream when the caller passed None: torch's current raw stream through the
 * getters kiln.runtime.launcher remembered, else its default_stream(). */
static int current_stream(Launcher *self, uint64_t *out) {
  PyObject *state = PyDict_GetItem(self->module_dict, str_torch_stream); /* borrowed */
  PyObject *s = NULL;
  if (state && PyTuple_Check(state) && PyTuple_Size(state) == 3) {
    PyObject *bad = PyObject_CallObject(PyTuple_GetItem(state, 2), NULL);
    if (!bad)
      return FAIL;
    int is_bad = PyObject_IsTrue(bad);
    Py_DECREF(bad);
    if (is_bad < 0)
      return FAIL;
    if (!is_bad) {
      PyObject *dev = PyObject_CallObject(PyTuple_GetItem(state, 1), NULL);
      if (!dev)
        return FAIL;
      s = PyObject_CallFunctionObjArgs(PyTuple_GetItem(state, 0), dev, NULL);
      Py_DECREF(dev);
    }
  }
  if (!s && !PyErr_Occurred())
    s = PyObject_CallObject(self->default_stream, NULL);
  if (!s)
    return FAIL;
  unsigned long long v;
  int rc = read_uint(s, UINT64_MAX, &v);
  Py_DECREF(s);
  if (rc == OK)
    *out = v;
  return rc;
}

/* The entry point to call: lib.kiln_rt_launch, re-read each call (tests replace it). */
static int current_entry(Launcher *self) {
  PyObject *fn = PyObject_GetAttr(self->lib, str_entry_name);
  if (!fn)
    return FAIL;
  if (fn == self->entry_obj) {
    Py_DECREF(fn);
    return self->entry ? OK : REFUSE;
  }
  PyObject *addr = PyObject_CallFunctionObjArgs(self->address_of, fn, NULL);
  if (!addr) {
    Py_DECREF(fn);
    return FAIL;
  }
  launch_fn entry = NULL;
  if (PyLong_Check(addr)) {
    unsigned long long a = PyLong_AsUnsignedLongLong(addr);
    if (PyErr_Occurred())
      PyErr_Clear();
    else
      entry = (launch_fn)(uintptr_t)a;
  }
  Py_DECREF(addr);
  PyObject *old = self->entry_obj;
  self->entry_obj = fn; /* takes fn's reference */
  Py_XDECREF(old);
  self->entry = entry;
  return entry ? OK : REFUSE;
}

/* A descriptor's tensor map, shape (i32) and strides (i64) into a->packed, from
 * desc_fields(obj, rank); remembered for obj (by weak reference). */
static int desc_packed(Launcher *self, Arg *a, PyObject *obj) {
  if (a->memo && PyWeakref_GetObject(a->memo) == obj)
    return OK;
  PyObject *rank = PyLong_FromLong(a->rank);
  PyObject *f = rank ? PyObject_CallFunctionObjArgs(self->desc_fields, obj, rank, NULL) : NULL;
  Py_XDECREF(rank);
  if (!f) { /* the Python launcher raises its own error */
    PyErr_Clear();
    return REFUSE;
  }
  int rc = REFUSE;
  if (PyTuple_Check(f) && PyTuple_Size(f) == 3) {
    PyObject *map = PyTuple_GetItem(f, 0), *shape = PyTuple_GetItem(f, 1),
             *strides = PyTuple_GetItem(f, 2);
    if (PyBytes_Check(map) && PyBytes_Size(map) == MAP_BYTES && PyTuple_Check(shape) &&
        PyTuple_Size(shape) == a->rank && PyTuple_Check(strides) &&
        PyTuple_Size(strides) == a->rank) {
      memcpy(a->packed, PyBytes_AsString(map), MAP_BYTES);
      rc = OK;
      for (int r = 0; r < a->rank && rc == OK; ++r) {
        long long x, y;
        rc = read_int(PyTuple_GetItem(shape, r), INT32_MIN, INT32_MAX, &x);
        if (rc == OK)
          rc = read_int(PyTuple_GetItem(strides, r), INT64_MIN, INT64_MAX, &y);
        if (rc == OK) {
          int32_t w = (int32_t)x;
          memcpy(a->packed + MAP_BYTES + 4 * r, &w, 4);
          memcpy(a->packed + MAP_BYTES + 4 * a->rank + 8 * r, &y, 8);
        }
      }
    }
  }
  Py_DECREF(f);
  if (rc != OK)
    return rc;
  PyObject *ref = PyWeakref_NewRef(obj, NULL);
  Py_XDECREF(a->memo);
  a->memo = ref; /* NULL when obj takes no weak references: nothing is remembered */
  if (!ref)
    PyErr_Clear();
  return OK;
}

/* Checks and packs the values into buf; OK, REFUSE or FAIL. */
static int pack(Launcher *self, PyObject *args, unsigned char *buf) {
  Py_ssize_t v = 4;
  for (Py_ssize_t i = 0; i < self->nargs; ++i) {
    Arg *a = &self->args[i];
    unsigned char *slot = buf + a->offset;
    PyObject *o = PyTuple_GetItem(args, v++);
    int rc = OK;
    switch (a->kind) {
    case 'p': {
      unsigned long long p = 0;
      rc = read_uint(PyTuple_GetItem(args, v++), UINT64_MAX, &p);
      if (rc == OK && a->divisible && p % a->divisible)
        rc = REFUSE;
      if (rc == OK)
        rc = host_tensor(self, o);
      if (rc == OK)
        memcpy(slot, &p, 8);
      break;
    }
    case 'i':
    case 'q':
    case 'I':
    case 'Q': {
      /* A 32- or 64-bit slot, signed or not; written as the value's low bytes
       * (the wheel's targets are little-endian). */
      int wide = a->kind == 'q' || a->kind == 'Q';
      uint64_t bits = 0;
      if (a->kind == 'i' || a->kind == 'q') {
        long long x = 0;
        rc = wide ? read_int(o, INT64_MIN, INT64_MAX, &x) : read_int(o, INT32_MIN, INT32_MAX, &x);
        if (rc == OK && a->divisible && x % (long long)a->divisible)
          rc = REFUSE;
        bits = (uint64_t)x;
      } else {
        unsigned long long x = 0;
        rc = read_uint(o, wide ? UINT64_MAX : UINT32_MAX, &x);
        if (rc == OK && a->divisible && x % a->divisible)
          rc = REFUSE;
        bits = x;
      }
      if (rc == OK)
        memcpy(slot, &bits, wide ? 8 : 4);
      break;
    }
    case 'f':
    case 'd': {
      if (!PyFloat_CheckExact(o)) {
        rc = REFUSE;
        break;
      }
      double d = PyFloat_AsDouble(o);
      if (a->kind == 'd') {
        memcpy(slot, &d, 8);
        break;
      }
      float f = (float)d;
      if (isinf(f) && !isinf(d)) { /* beyond float32: the packer's error, not a silent inf */
        rc = REFUSE;
        break;
      }
      memcpy(slot, &f, 4);
      break;
    }
    case 'b':
      if (!PyBool_Check(o))
        rc = REFUSE;
      else
        slot[0] = o == Py_True;
      break;
    case 'D':
      rc = desc_packed(self, a, o);
      if (rc == OK) {
        memcpy(slot, a->packed, MAP_BYTES);
        for (int r = 0; r < a->rank; ++r) {
          memcpy(buf + a->sub[r], a->packed + MAP_BYTES + 4 * r, 4);
          memcpy(buf + a->sub[a->rank + r], a->packed + MAP_BYTES + 4 * a->rank + 8 * r, 8);
        }
      }
      break;
    default:
      rc = REFUSE;
    }
    if (rc != OK)
      return rc;
  }
  return OK;
}

static PyObject *launcher_call(PyObject *obj, PyObject *args, PyObject *kwargs) {
  Launcher *self = (Launcher *)obj;
  if (kwargs || !PyTuple_Check(args) || PyTuple_Size(args) != 4 + self->nvalues)
    return PyObject_Call(self->fallback, args, kwargs);
  unsigned long long grid[3];
  for (int d = 0; d < 3; ++d) {
    int rc = read_uint(PyTuple_GetItem(args, d), UINT32_MAX, &grid[d]);
    if (rc == FAIL)
      return NULL;
    if (rc == REFUSE)
      return PyObject_Call(self->fallback, args, NULL);
  }
  PyObject *fn = PyObject_GetAttr(self->kernel, str_function);
  if (!fn)
    return NULL;
  unsigned long long func = 0;
  int rc = fn == Py_None ? REFUSE : read_uint(fn, UINT64_MAX, &func);
  Py_DECREF(fn);
  _Alignas(64) unsigned char buf[MAX_BYTES];
  memset(buf, 0, self->size);
  if (rc == OK)
    rc = current_entry(self);
  if (rc == OK)
    rc = pack(self, args, buf);
  uint64_t stream = 0;
  if (rc == OK) {
    PyObject *s = PyTuple_GetItem(args, 3);
    if (s == Py_None) {
      rc = current_stream(self, &stream);
    } else {
      unsigned long long v = 0;
      rc = read_uint(s, UINT64_MAX, &v);
      stream = v;
    }
  }
  if (rc == FAIL)
    return NULL;
  if (rc == REFUSE)
    return PyObject_Call(self->fallback, args, NULL);
  int status;
  launch_fn entry = self->entry;
  Py_BEGIN_ALLOW_THREADS
  status = entry(self->backend, func, (unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2],
                 self->block[0], self->block[1], self->block[2], 1, self->shared, stream, buf,
                 self->size, self->offsets, (size_t)self->nslots);
  Py_END_ALLOW_THREADS
  if (status) {
    PyObject *r = PyObject_CallFunction(self->check, "i", status);
    if (!r)
      return NULL;
    Py_DECREF(r);
  }
  Py_RETURN_NONE;
}

/* Launcher(fallback, kernel, lib, address_of, check, module_dict, default_stream, tensor_type,
 *          on_cpu, desc_fields, backend, block, shared, size, plan, offsets): plan has one
 * (kind, offset, divisible, sub) a parameter (sub: a descriptor's shape and stride offsets,
 * else ()), offsets every entry of the argument buffer. */
static PyObject *launcher_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  PyObject *fallback, *kernel, *lib, *address_of, *check, *module_dict, *default_stream,
      *tensor_type, *on_cpu, *desc_fields, *plan, *offsets;
  const char *backend;
  unsigned bx, by, bz, shared;
  Py_ssize_t size;
  if (kwargs && PyDict_Size(kwargs)) {
    PyErr_SetString(PyExc_TypeError, "Launcher takes no keyword arguments");
    return NULL;
  }
  if (!PyArg_ParseTuple(args, "OOOOOO!OOOOs(III)InO!O!", &fallback, &kernel, &lib,
                        &address_of, &check, &PyDict_Type, &module_dict, &default_stream,
                        &tensor_type, &on_cpu, &desc_fields, &backend, &bx, &by, &bz, &shared,
                        &size, &PyTuple_Type, &plan, &PyTuple_Type, &offsets))
    return NULL;
  Py_ssize_t n = PyTuple_Size(plan), nslots = PyTuple_Size(offsets);
  if (strlen(backend) >= sizeof(((Launcher *)0)->backend) || size < 0 || size > MAX_BYTES ||
      n > MAX_ARGS || nslots > MAX_ARGS) {
    PyErr_SetString(PyExc_ValueError, "Launcher: backend name, buffer or arguments too large");
    return NULL;
  }
  Launcher *self = (Launcher *)PyType_GenericAlloc(type, 0);
  if (!self)
    return NULL;
#define BAD(msg)                                                                             \
  do {                                                                                       \
    PyErr_SetString(PyExc_ValueError, "Launcher: " msg);                                     \
    Py_DECREF(self);                                                                         \
    return NULL;                                                                             \
  } while (0)
  for (Py_ssize_t i = 0; i < nslots; ++i) {
    unsigned long long o = PyLong_AsUnsignedLongLong(PyTuple_GetItem(offsets, i));
    if (PyErr_Occurred() || o + 8 > (unsigned long long)size)
      BAD("argument offset out of range");
    self->offsets[i] = (uint32_t)o;
  }
  self->nslots = nslots;
  self->nvalues = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    const char *kind;
    unsigned offset;
    unsigned long long divisible;
    PyObject *sub;
    if (!PyArg_ParseTuple(PyTuple_GetItem(plan, i), "sIKO!", &kind, &offset, &divisible,
                          &PyTuple_Type, &sub)) {
      Py_DECREF(self);
      return NULL;
    }
    Arg *a = &self->args[i];
    if (strlen(kind) != 1 || !strchr("piIqQfdbD", kind[0]))
      BAD("unknown argument kind");
    Py_ssize_t nsub = PyTuple_Size(sub);
    if (offset + (kind[0] == 'D' ? MAP_BYTES : 8) > (unsigned long long)size ||
        (kind[0] == 'D') != (nsub > 0) || nsub % 2 || nsub > 2 * MAX_RANK)
      BAD("bad argument plan");
    a->kind = kind[0];
    a->offset = offset;
    a->divisible = divisible;
    a->rank = (int)(nsub / 2);
    for (Py_ssize_t r = 0; r < nsub; ++r) {
      unsigned long long o = PyLong_AsUnsignedLongLong(PyTuple_GetItem(sub, r));
      if (PyErr_Occurred() || o + 8 > (unsigned long long)size)
        BAD("descriptor field offset out of range");
      a->sub[r] = (uint32_t)o;
    }
    self->nvalues += kind[0] == 'p' ? 2 : 1;
  }
#undef BAD
  self->nargs = n;
  self->size = (size_t)size;
  strcpy(self->backend, backend);
  self->block[0] = bx, self->block[1] = by, self->block[2] = bz;
  self->shared = shared;
  PyObject **slots[] = {&self->fallback, &self->kernel, &self->lib, &self->address_of,
                        &self->check, &self->module_dict, &self->default_stream,
                        &self->tensor_type, &self->on_cpu, &self->desc_fields};
  PyObject *values[] = {fallback, kernel, lib, address_of, check, module_dict, default_stream,
                        tensor_type, on_cpu, desc_fields};
  for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); ++i) {
    Py_INCREF(values[i]);
    *slots[i] = values[i];
  }
  return (PyObject *)self;
}

static int launcher_traverse(PyObject *obj, visitproc visit, void *arg) {
  Launcher *self = (Launcher *)obj;
  Py_VISIT(self->fallback);
  Py_VISIT(self->kernel);
  Py_VISIT(self->lib);
  Py_VISIT(self->entry_obj);
  Py_VISIT(self->address_of);
  Py_VISIT(self->check);
  Py_VISIT(self->module_dict);
  Py_VISIT(self->default_stream);
  Py_VISIT(self->tensor_type);
  Py_VISIT(self->on_cpu);
  Py_VISIT(self->desc_fields);
  return 0;
}

static int launcher_clear(PyObject *obj) {
  Launcher *self = (Launcher *)obj;
  Py_CLEAR(self->fallback);
  Py_CLEAR(self->kernel);
  Py_CLEAR(self->lib);
  Py_CLEAR(self->entry_obj);
  self->entry = NULL;
  Py_CLEAR(self->address_of);
  Py_CLEAR(self->check);
  Py_CLEAR(self->module_dict);
  Py_CLEAR(self->default_stream);
  Py_CLEAR(self->tensor_type);
  Py_CLEAR(self->on_cpu);
  Py_CLEAR(self->desc_fields);
  for (Py_ssize_t i = 0; i < self->nargs; ++i)
    Py_CLEAR(self->args[i].memo);
  return 0;
}

static void launcher_dealloc(PyObject *obj) {
  PyTypeObject *type = Py_TYPE(obj);
  PyObject_GC_UnTrack(obj);
  launcher_clear(obj);
  freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
  free_fn(obj);
  Py_DECREF(type);
}

/* `code`: the fallback's generated source (what the Python launcher would run). */
static PyObject *launcher_code(PyObject *obj, void *closure) {
  (void)closure;
  return PyObject_GetAttrString(((Launcher *)obj)->fallback, "code");
}

static PyMemberDef launcher_members[] = {
    {"fallback", T_OBJECT, offsetof(Launcher, fallback), READONLY,
     "the Python launcher every refused call goes to"},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef launcher_getset[] = {
    {"code", launcher_code, NULL, "the fallback's generated source", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static char launcher_doc[] =
    "A kernel's warm launch for one kind of each argument (see the module).";

static PyType_Slot launcher_slots[] = {
    {Py_tp_new, launcher_new},
    {Py_tp_call, launcher_call},
    {Py_tp_dealloc, launcher_dealloc},
    {Py_tp_traverse, launcher_traverse},
    {Py_tp_clear, launcher_clear},
    {Py_tp_members, launcher_members},
    {Py_tp_getset, launcher_getset},
    {Py_tp_doc, launcher_doc},
    {0, NULL}};

static PyType_Spec launcher_spec = {"kiln._fastlaunch.Launcher", sizeof(Launcher), 0,
                                    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, launcher_slots};


static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_fastlaunch",
                                        "Kiln's warm kernel launch in C.", -1, NULL,
                                        NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fastlaunch(void) {
  str_function = PyUnicode_InternFromString("_function");
  str_is_cpu = PyUnicode_InternFromString("is_cpu");
  str_entry_name = PyUnicode_InternFromString("kiln_rt_launch");
  str_torch_stream = PyUnicode_InternFromString("_TORCH_STREAM");
  if (!str_function || !str_is_cpu || !str_entry_name || !str_torch_stream)
    return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m)
    return NULL;
  PyObject *type = PyType_FromSpec(&launcher_spec);
  if (!type || PyModule_AddObject(m, "Launcher", type) < 0) {
    Py_XDECREF(type);
    Py_DECREF(m);
    return NULL;
  }
  return m;
}

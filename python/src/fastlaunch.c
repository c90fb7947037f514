/* kiln._fastlaunch: the warm launch of one kernel for one kind of each argument, in C.
 *
 * kiln.runtime.launcher.LoadedKernel.fast_launcher generates a Python function
 * launch(gx, gy, gz, stream, *values) that checks the values, packs the argument buffer,
 * asks torch for the current stream and calls kiln_rt_launch through ctypes. A Launcher
 * does the same work here for the argument kinds whose checks it knows (pointers, 32/64-bit
 * ints, fp32/fp64, i1) and hands every call it is not sure of -- a value of another type or
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
    case 'q': {
      long long x = 0;
      rc = a->kind == 'i' ? read_int(o, INT32_MIN, INT32_MAX, &x)
                          : read_int(o, INT64_MIN, INT64_MAX, &x);
      if (rc == OK && a->divisible && x % (long long)a->divisible)
        rc = REFUSE;
      if (rc == OK) {
        if (a->kind == 'i') {
          int32_t w = (int32_t)x;
          memcpy(slot, &w, 4);
        } else {
          memcpy(slot, &x, 8);
        }
      }
      break;
    }
    case 'I':
    case 'Q': {
      unsigned long long x = 0;
      rc = read_uint(o, a->kind == 'I' ? UINT32_MAX : UINT64_MAX, &x);
      if (rc == OK && a->divisible && x % a->divisible)
        rc = REFUSE;
      if (rc == OK) {
        if (a->kind == 'I') {
          uint32_t w = (uint32_t)x;
          memcpy(slot, &w, 4);
        } else {
          memcpy(slot, &x, 8);
        }
      }
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


/* ---- Binder: a kiln.jit call shape's warm path ---------------------------------------------
 *
 * kiln.jit._Variant generates run(args, kwargs, grid) for one call shape and one kind per
 * argument: it binds the arguments, checks their types, builds the key of what specialization
 * reads of them, finds the launcher learnt for that key, checks the globals and the grid and
 * launches. A Binder runs the same steps from a program of ops _Variant emits beside the
 * code (the key's parts in the key's order), and hands every call it is not sure of -- a
 * guard that fails, a grid that is not a tuple or list of ints, any error -- to run()
 * unchanged. Ops (kiln/jit.py's _OP_*): */
enum {
  OP_VALUE,  /* (op, slot): the value itself is a key part */
  OP_DEBUG,  /* (op,): J.debug */
  OP_TOKEN,  /* (op, slot, C, S): S if the value is C, else the value */
  OP_INT,    /* (op, slot): exactly an int; its class (1, 16-divisible, other; 64-bit classes) */
  OP_FLOAT,  /* (op, slot): exactly a float */
  OP_BOOL,   /* (op, slot): a bool */
  OP_NONE,   /* (op, slot): None */
  OP_TENSOR, /* (op, slot, T, limits): type T; data_ptr(); dtype, 16-byte alignment, limits */
  OP_DESC,   /* (op, slot, T): type T; its _spec_id */
  OP_TUPLE,  /* (op, slot, T, n, first): type T, length n; elements to slots first.. */
};

enum { MAX_SLOTS = 256, MAX_OPS = 512, MAX_LIMITS = 4, MAX_KEYWORDS = 64 };

typedef struct {
  int op, slot, n, first;
  PyObject *a, *b;   /* TOKEN: C, S; TENSOR / DESC / TUPLE: the type */
  int nlimits;
  PyObject *limits[MAX_LIMITS];
} Op;

typedef struct {
  PyObject_HEAD
  PyObject *run, *fn, *table, *int_class, *storage_bytes;
  PyObject *kwnames[MAX_KEYWORDS];
  int kwslots[MAX_KEYWORDS];
  int nkw, npos, nslots, nops, keylen, stream_slot, nleaves;
  Op ops[MAX_OPS];
  short leaf_slot[MAX_SLOTS];
  char leaf_tensor[MAX_SLOTS];
} Binder;

static PyObject *str_debug, *str_globals_ok, *str_data_ptr, *str_dtype, *str_spec_id;

static PyObject *delegate(Binder *self, PyObject *args) {
  PyErr_Clear();
  return PyObject_Call(self->run, args, NULL);
}

/* The key part of an int argument: _INT_KEY of kiln/jit.py. */
static PyObject *int_class(Binder *self, PyObject *v) {
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (x == -1 && PyErr_Occurred())
    return NULL;
  if (!overflow && x >= INT32_MIN && x <= INT32_MAX)
    return PyLong_FromLong(x == 1 ? 1 : (x & 15) == 0 ? 2 : 3);
  return PyObject_CallFunctionObjArgs(self->int_class, v, NULL);
}

/* Grid dimensions as run() takes them: 1 to 3 ints, x below 2**31, y and z below 65536.
 * 1: taken; 0: refused (run() returns None); -1: not a tuple or list (run() decides). */
static int read_grid(PyObject *grid, unsigned long long dims[3]) {
  int is_tuple = PyTuple_CheckExact(grid), is_list = PyList_CheckExact(grid);
  if (!is_tuple && !is_list)
    return -1;
  Py_ssize_t n = PySequence_Size(grid);
  if (n < 1 || n > 3)
    return 0;
  dims[0] = dims[1] = dims[2] = 1;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *d = is_tuple ? PyTuple_GetItem(grid, i) : PyList_GetItem(grid, i);
    if (!d || !PyLong_CheckExact(d))
      return 0;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(d, &overflow);
    if (overflow || v <= 0 || v > (i == 0 ? 2147483647LL : 65535LL))
      return 0;
    dims[i] = (unsigned long long)v;
  }
  return 1;
}

static PyObject *binder_call(PyObject *obj, PyObject *args, PyObject *kwargs) {
  Binder *self = (Binder *)obj;
  if (kwargs || !PyTuple_Check(args) || PyTuple_Size(args) != 3)
    return PyObject_Call(self->run, args, kwargs);
  PyObject *pos = PyTuple_GetItem(args, 0), *kw = PyTuple_GetItem(args, 1),
           *grid = PyTuple_GetItem(args, 2);
  if (!PyTuple_Check(pos) || PyTuple_Size(pos) != self->npos || !PyDict_Check(kw))
    return delegate(self, args);
  PyObject *vals[MAX_SLOTS], *ptrs[MAX_SLOTS];
  memset(vals, 0, sizeof(PyObject *) * self->nslots);
  memset(ptrs, 0, sizeof(PyObject *) * self->nslots);
  PyObject *key = NULL, *hit = NULL, *result = NULL;
  int fallback = 0; /* 1: run() decides; 2: run() returns None */
  for (int i = 0; i < self->npos; ++i) {
    vals[i] = PyTuple_GetItem(pos, i);
    Py_INCREF(vals[i]);
  }
  for (int i = 0; i < self->nkw && !fallback; ++i) {
    PyObject *v = PyDict_GetItemWithError(kw, self->kwnames[i]);
    if (!v) {
      fallback = 1;
      break;
    }
    Py_INCREF(v);
    Py_XDECREF(vals[self->kwslots[i]]);
    vals[self->kwslots[i]] = v;
  }
  if (!fallback)
    key = PyTuple_New(self->keylen);
  if (!key)
    fallback = 1;
  int k = 0;
  for (int i = 0; i < self->nops && !fallback; ++i) {
    const Op *op = &self->ops[i];
    PyObject *v = op->op == OP_DEBUG ? NULL : vals[op->slot];
    if (op->op != OP_DEBUG && !v) {
      fallback = 1;
      break;
    }
    PyObject *part = NULL;
    switch (op->op) {
    case OP_VALUE:
      Py_INCREF(v);
      part = v;
      break;
    case OP_DEBUG:
      part = PyObject_GetAttr(self->fn, str_debug);
      if (!part)
        fallback = 1;
      break;
    case OP_TOKEN:
      part = v == op->a ? op->b : v;
      Py_INCREF(part);
      break;
    case OP_INT:
      if (!PyLong_CheckExact(v) || !(part = int_class(self, v)))
        fallback = 1;
      break;
    case OP_FLOAT:
      fallback = !PyFloat_CheckExact(v);
      break;
    case OP_BOOL:
      fallback = !PyBool_Check(v);
      break;
    case OP_NONE:
      fallback = v != Py_None;
      break;
    case OP_TENSOR: {
      if ((PyObject *)Py_TYPE(v) != op->a) {
        fallback = 1;
        break;
      }
      PyObject *p = PyObject_CallMethodObjArgs(v, str_data_ptr, NULL);
      if (!p || !PyLong_CheckExact(p)) {
        Py_XDECREF(p);
        fallback = 1;
        break;
      }
      ptrs[op->slot] = p;
      int overflow = 0;
      long long x = PyLong_AsLongLongAndOverflow(p, &overflow);
      PyObject *dtype = PyObject_GetAttr(v, str_dtype);
      if (overflow || (x == -1 && PyErr_Occurred()) || !dtype) {
        Py_XDECREF(dtype);
        fallback = 1;
        break;
      }
      PyTuple_SetItem(key, k++, dtype);
      part = (x & 15) == 0 ? Py_True : Py_False;
      Py_INCREF(part);
      if (op->nlimits) {
        PyTuple_SetItem(key, k++, part);
        part = NULL;
        PyObject *n = PyObject_CallFunctionObjArgs(self->storage_bytes, v, NULL);
        if (!n) {
          fallback = 1;
          break;
        }
        for (int l = 0; l < op->nlimits && !fallback; ++l) {
          int le = n == Py_None ? 0 : PyObject_RichCompareBool(n, op->limits[l], Py_LE);
          if (le < 0) {
            fallback = 1;
            break;
          }
          PyObject *b = le ? Py_True : Py_False;
          Py_INCREF(b);
          PyTuple_SetItem(key, k++, b);
        }
        Py_DECREF(n);
      }
      break;
    }
    case OP_DESC:
      if ((PyObject *)Py_TYPE(v) != op->a) {
        fallback = 1;
        break;
      }
      part = PyObject_GetAttr(v, str_spec_id);
      if (!part) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
          fallback = 1;
          break;
        }
        PyErr_Clear();
        part = Py_None;
        Py_INCREF(part);
      }
      break;
    case OP_TUPLE:
      if ((PyObject *)Py_TYPE(v) != op->a || PyObject_Size(v) != op->n) {
        fallback = 1;
        break;
      }
      for (int e = 0; e < op->n; ++e) {
        PyObject *item = PySequence_GetItem(v, e);
        if (!item) {
          fallback = 1;
          break;
        }
        Py_XDECREF(vals[op->first + e]);
        vals[op->first + e] = item;
      }
      break;
    }
    if (part)
      PyTuple_SetItem(key, k++, part);
  }
  if (!fallback && k != self->keylen)
    fallback = 1; /* the program and its key length disagree: never expected */
  if (!fallback) {
    hit = PyDict_GetItemWithError(self->table, key);
    if (!hit)
      fallback = PyErr_Occurred() ? 1 : 2; /* unhashable: run() says None; a miss: None */
    else
      Py_INCREF(hit);
  }
  if (!fallback) {
    PyObject *ok = PyObject_GetAttr(self->fn, str_globals_ok);
    if (!ok) {
      fallback = 1;
    } else if (ok != Py_None) {
      PyObject *r = PyObject_CallObject(ok, NULL);
      int t = r ? PyObject_IsTrue(r) : -1;
      Py_XDECREF(r);
      fallback = t < 0 ? 1 : t ? 0 : 2;
    }
    Py_XDECREF(ok);
  }
  unsigned long long dims[3];
  if (!fallback) {
    int g = read_grid(grid, dims);
    if (g < 0)
      fallback = 1;
    else if (g == 0)
      fallback = 2;
  }
  if (!fallback && (!PyTuple_Check(hit) || PyTuple_Size(hit) < 2))
    fallback = 1;
  if (!fallback) {
    int nvalues = 0;
    for (int i = 0; i < self->nleaves; ++i)
      nvalues += self->leaf_tensor[i] ? 2 : 1;
    PyObject *call = PyTuple_New(4 + nvalues);
    if (!call) {
      fallback = 1;
    } else {
      PyObject *stream = self->stream_slot >= 0 ? vals[self->stream_slot] : Py_None;
      PyTuple_SetItem(call, 0, PyLong_FromUnsignedLongLong(dims[0]));
      PyTuple_SetItem(call, 1, PyLong_FromUnsignedLongLong(dims[1]));
      PyTuple_SetItem(call, 2, PyLong_FromUnsignedLongLong(dims[2]));
      Py_INCREF(stream ? stream : Py_None);
      PyTuple_SetItem(call, 3, stream ? stream : Py_None);
      int at = 4;
      for (int i = 0; i < self->nleaves; ++i) {
        int slot = self->leaf_slot[i];
        PyObject *v = vals[slot] ? vals[slot] : Py_None;
        Py_INCREF(v);
        PyTuple_SetItem(call, at++, v);
        if (self->leaf_tensor[i]) {
          PyObject *p = ptrs[slot] ? ptrs[slot] : Py_None;
          Py_INCREF(p);
          PyTuple_SetItem(call, at++, p);
        }
      }
      PyObject *r = PyObject_Call(PyTuple_GetItem(hit, 0), call, NULL);
      Py_DECREF(call);
      if (r) {
        Py_DECREF(r);
        result = PyTuple_GetItem(hit, 1);
        Py_INCREF(result);
      }
      /* else: the launcher's error, as run() would raise it */
    }
  }
  Py_XDECREF(hit);
  Py_XDECREF(key);
  for (int i = 0; i < self->nslots; ++i) {
    Py_XDECREF(vals[i]);
    Py_XDECREF(ptrs[i]);
  }
  if (fallback == 1)
    return delegate(self, args);
  if (fallback == 2) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  return result;
}

/* Binder(run, fn, table, npos, keywords, nslots, ops, leaves, stream_slot, int_class,
 *        storage_bytes): keywords ((name, slot), ...), leaves ((slot, is_tensor), ...). */
static PyObject *binder_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  PyObject *run, *fn, *table, *keywords, *ops, *leaves, *int_cls, *storage;
  int npos, nslots, stream_slot;
  if (kwargs && PyDict_Size(kwargs)) {
    PyErr_SetString(PyExc_TypeError, "Binder takes no keyword arguments");
    return NULL;
  }
  if (!PyArg_ParseTuple(args, "OOO!iO!iO!O!iOO", &run, &fn, &PyDict_Type, &table, &npos,
                        &PyTuple_Type, &keywords, &nslots, &PyTuple_Type, &ops, &PyTuple_Type,
                        &leaves, &stream_slot, &int_cls, &storage))
    return NULL;
  Py_ssize_t nkw = PyTuple_Size(keywords), nops = PyTuple_Size(ops),
             nleaves = PyTuple_Size(leaves);
  if (npos < 0 || nslots < npos || nslots > MAX_SLOTS || nkw > MAX_KEYWORDS ||
      nops > MAX_OPS || nleaves > MAX_SLOTS || stream_slot >= nslots) {
    PyErr_SetString(PyExc_ValueError, "Binder: program too large or inconsistent");
    return NULL;
  }
  Binder *self = (Binder *)PyType_GenericAlloc(type, 0);
  if (!self)
    return NULL;
  self->npos = npos, self->nslots = nslots, self->stream_slot = stream_slot;
#define BAD(msg)                                                                             \
  do {                                                                                       \
    PyErr_SetString(PyExc_ValueError, "Binder: " msg);                                       \
    Py_DECREF(self);                                                                         \
    return NULL;                                                                             \
  } while (0)
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject *name;
    int slot;
    if (!PyArg_ParseTuple(PyTuple_GetItem(keywords, i), "Ui", &name, &slot)) {
      Py_DECREF(self);
      return NULL;
    }
    if (slot < 0 || slot >= nslots)
      BAD("keyword slot out of range");
    Py_INCREF(name);
    self->kwnames[self->nkw] = name;
    self->kwslots[self->nkw++] = slot;
  }
  int keylen = 0;
  for (Py_ssize_t i = 0; i < nops; ++i) {
    PyObject *t = PyTuple_GetItem(ops, i);
    Py_ssize_t len = PyTuple_Check(t) ? PyTuple_Size(t) : 0;
    Op *op = &self->ops[self->nops];
    memset(op, 0, sizeof(*op));
    op->slot = -1;
    if (len < 1 || (op->op = (int)PyLong_AsLong(PyTuple_GetItem(t, 0))) < OP_VALUE ||
        op->op > OP_TUPLE)
      BAD("bad op");
    if (op->op != OP_DEBUG) {
      if (len < 2)
        BAD("op without a slot");
      op->slot = (int)PyLong_AsLong(PyTuple_GetItem(t, 1));
      if (op->slot < 0 || op->slot >= nslots)
        BAD("op slot out of range");
    }
    static const int lens[] = {2, 1, 4, 2, 2, 2, 2, 4, 3, 5};
    if (len != lens[op->op])
      BAD("op of the wrong length");
    switch (op->op) {
    case OP_TOKEN:
      op->a = PyTuple_GetItem(t, 2), op->b = PyTuple_GetItem(t, 3);
      break;
    case OP_TENSOR: {
      op->a = PyTuple_GetItem(t, 2);
      PyObject *limits = PyTuple_GetItem(t, 3);
      if (!PyTuple_Check(limits) || PyTuple_Size(limits) > MAX_LIMITS)
        BAD("tensor limits");
      op->nlimits = (int)PyTuple_Size(limits);
      for (int l = 0; l < op->nlimits; ++l) {
        op->limits[l] = PyTuple_GetItem(limits, l);
        Py_INCREF(op->limits[l]);
      }
      break;
    }
    case OP_DESC:
      op->a = PyTuple_GetItem(t, 2);
      break;
    case OP_TUPLE:
      op->a = PyTuple_GetItem(t, 2);
      op->n = (int)PyLong_AsLong(PyTuple_GetItem(t, 3));
      op->first = (int)PyLong_AsLong(PyTuple_GetItem(t, 4));
      if (op->n < 0 || op->first < 0 || op->first + op->n > nslots)
        BAD("tuple slots out of range");
      break;
    }
    Py_XINCREF(op->a);
    Py_XINCREF(op->b);
    self->nops++;
    keylen += op->op == OP_VALUE || op->op == OP_DEBUG || op->op == OP_TOKEN ||
                      op->op == OP_INT || op->op == OP_DESC
                  ? 1
              : op->op == OP_TENSOR ? 2 + op->nlimits
                                    : 0;
  }
  if (PyErr_Occurred()) {
    Py_DECREF(self);
    return NULL;
  }
  self->keylen = keylen;
  for (Py_ssize_t i = 0; i < nleaves; ++i) {
    int slot, tensor;
    if (!PyArg_ParseTuple(PyTuple_GetItem(leaves, i), "ip", &slot, &tensor)) {
      Py_DECREF(self);
      return NULL;
    }
    if (slot < 0 || slot >= nslots)
      BAD("leaf slot out of range");
    self->leaf_slot[self->nleaves] = (short)slot;
    self->leaf_tensor[self->nleaves++] = (char)tensor;
  }
#undef BAD
  PyObject **slots[] = {&self->run, &self->fn, &self->table, &self->int_class,
                        &self->storage_bytes};
  PyObject *values[] = {run, fn, table, int_cls, storage};
  for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); ++i) {
    Py_INCREF(values[i]);
    *slots[i] = values[i];
  }
  return (PyObject *)self;
}

static int binder_traverse(PyObject *obj, visitproc visit, void *arg) {
  Binder *self = (Binder *)obj;
  Py_VISIT(self->run);
  Py_VISIT(self->fn);
  Py_VISIT(self->table);
  Py_VISIT(self->int_class);
  Py_VISIT(self->storage_bytes);
  for (int i = 0; i < self->nops; ++i) {
    Py_VISIT(self->ops[i].a);
    Py_VISIT(self->ops[i].b);
  }
  return 0;
}

static int binder_clear(PyObject *obj) {
  Binder *self = (Binder *)obj;
  Py_CLEAR(self->run);
  Py_CLEAR(self->fn);
  Py_CLEAR(self->table);
  Py_CLEAR(self->int_class);
  Py_CLEAR(self->storage_bytes);
  for (int i = 0; i < self->nops; ++i) {
    Py_CLEAR(self->ops[i].a);
    Py_CLEAR(self->ops[i].b);
    for (int l = 0; l < self->ops[i].nlimits; ++l)
      Py_CLEAR(self->ops[i].limits[l]);
  }
  self->nops = 0;
  for (int i = 0; i < self->nkw; ++i)
    Py_CLEAR(self->kwnames[i]);
  self->nkw = 0;
  return 0;
}

static void binder_dealloc(PyObject *obj) {
  PyTypeObject *type = Py_TYPE(obj);
  PyObject_GC_UnTrack(obj);
  binder_clear(obj);
  freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
  free_fn(obj);
  Py_DECREF(type);
}

static PyMemberDef binder_members[] = {
    {"run", T_OBJECT, offsetof(Binder, run), READONLY,
     "the generated Python function every refused call goes to"},
    {NULL, 0, 0, 0, NULL}};

static char binder_doc[] = "A kiln.jit call shape's warm path (see the module).";

static PyType_Slot binder_slots[] = {
    {Py_tp_new, binder_new},
    {Py_tp_call, binder_call},
    {Py_tp_dealloc, binder_dealloc},
    {Py_tp_traverse, binder_traverse},
    {Py_tp_clear, binder_clear},
    {Py_tp_members, binder_members},
    {Py_tp_doc, binder_doc},
    {0, NULL}};

static PyType_Spec binder_spec = {"kiln._fastlaunch.Binder", sizeof(Binder), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, binder_slots};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_fastlaunch",
                                        "Kiln's warm kernel launch in C.", -1, NULL,
                                        NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fastlaunch(void) {
  str_function = PyUnicode_InternFromString("_function");
  str_is_cpu = PyUnicode_InternFromString("is_cpu");
  str_entry_name = PyUnicode_InternFromString("kiln_rt_launch");
  str_torch_stream = PyUnicode_InternFromString("_TORCH_STREAM");
  str_debug = PyUnicode_InternFromString("debug");
  str_globals_ok = PyUnicode_InternFromString("_globals_ok");
  str_data_ptr = PyUnicode_InternFromString("data_ptr");
  str_dtype = PyUnicode_InternFromString("dtype");
  str_spec_id = PyUnicode_InternFromString("_spec_id");
  if (!str_function || !str_is_cpu || !str_entry_name || !str_torch_stream || !str_debug ||
      !str_globals_ok || !str_data_ptr || !str_dtype || !str_spec_id)
    return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m)
    return NULL;
  PyType_Spec *specs[] = {&launcher_spec, &binder_spec};
  const char *names[] = {"Launcher", "Binder"};
  for (int i = 0; i < 2; ++i) {
    PyObject *type = PyType_FromSpec(specs[i]);
    if (!type || PyModule_AddObject(m, names[i], type) < 0) {
      Py_XDECREF(type);
      Py_DECREF(m);
      return NULL;
    }
  }
  return m;
}

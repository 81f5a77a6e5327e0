// C++ objects handed to Python as capsules that own a std::shared_ptr to them
// (process groups, reducers, tracers, programs): the Python side keeps the
// capsule in an object of its own and passes it back to the _C functions.
#pragma once

#include <Python.h>

#include <memory>
#include <utility>

#include "oar/core/errors.h"

namespace oar::py {

template <typename T>
void DestroySharedCapsule(PyObject* capsule) {
  // Owned by the capsule since WrapShared.
  std::unique_ptr<std::shared_ptr<T>>(
      static_cast<std::shared_ptr<T>*>(PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule))));
}

// A capsule named name owning p (None for a null p).
template <typename T>
PyObject* WrapShared(std::shared_ptr<T> p, const char* name) {
  if (!p) Py_RETURN_NONE;
  auto holder = std::make_unique<std::shared_ptr<T>>(std::move(p));
  PyObject* capsule = PyCapsule_New(holder.get(), name, DestroySharedCapsule<T>);
  if (capsule) holder.release();  // the capsule owns it now
  return capsule;
}

// The object of a capsule WrapShared made under name; InvalidType otherwise.
template <typename T>
std::shared_ptr<T>& GetShared(PyObject* capsule, const char* name) {
  void* p = PyCapsule_GetPointer(capsule, name);
  if (!p) {
    PyErr_Clear();
    throw errors::InvalidType("expected a ", name, " handle");
  }
  return *static_cast<std::shared_ptr<T>*>(p);
}

}  // namespace oar::py

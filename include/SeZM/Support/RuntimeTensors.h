//===- RuntimeTensors.h - HostTensor as sezm_tensor ------------*- C++ -*-===//
//
// The one mapping between the tools' HostTensor and the C API's sezm_tensor,
// for the tools that run artifacts through libsezm_runtime (sezm-run,
// sezm-exec). Header-only: it needs sezm_runtime.h, which only they see.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_RUNTIMETENSORS_H
#define SEZM_SUPPORT_RUNTIMETENSORS_H

#include "SeZM/Support/HostTensor.h"
#include "sezm_runtime.h"

#include <cstring>

namespace sezmrt {

/// The runtime's name of an element type.
inline sezm_dtype runtimeDtype(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return SEZM_F32;
  case ElementType::F64:
    return SEZM_F64;
  case ElementType::I32:
    return SEZM_I32;
  case ElementType::I64:
    return SEZM_I64;
  }
  return SEZM_F32;
}

/// The element type of a runtime dtype.
inline ElementType elementTypeOf(sezm_dtype dtype) {
  switch (dtype) {
  case SEZM_F32:
    return ElementType::F32;
  case SEZM_F64:
    return ElementType::F64;
  case SEZM_I32:
    return ElementType::I32;
  case SEZM_I64:
    return ElementType::I64;
  }
  return ElementType::F32;
}

/// A sezm_tensor view of `t`'s bytes in host memory (no copy: `t` must
/// outlive it).
inline sezm_tensor describeHost(const HostTensor &t) {
  return sezm_tensor_describe(runtimeDtype(t.type),
                              static_cast<int>(t.shape.size()), t.shape.data(),
                              t.bytes.data(), /*on_device=*/0);
}

/// A host copy of a sezm_tensor in host memory.
inline HostTensor copyToHostTensor(const sezm_tensor &t) {
  HostTensor out(elementTypeOf(t.dtype),
                 std::vector<int64_t>(t.shape, t.shape + t.rank));
  std::memcpy(out.bytes.data(), t.data, out.bytes.size());
  return out;
}

} // namespace sezmrt

#endif // SEZM_SUPPORT_RUNTIMETENSORS_H

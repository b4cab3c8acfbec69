//===- TorchCheckpoint.h - PyTorch checkpoints without PyTorch --*- C++ -*-===//
//
// Reads what `torch.save` writes (its zip format): a zip archive, entries
// stored uncompressed, holding `<archive>/data.pkl`, a pickle of the saved
// object, and `<archive>/data/<key>`, the bytes of each tensor storage the
// pickle names by key. The pickle is run by a small machine that knows the
// opcodes torch.save emits and the few Python globals a DeePMD-kit
// checkpoint refers to (OrderedDict, tensors rebuilt from typed storages);
// any other global is an error that names it, and nothing is executed.
// Plain C++, fuzzed like the other loaders.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_TORCHCHECKPOINT_H
#define SEZM_SUPPORT_TORCHCHECKPOINT_H

#include "SeZM/Support/HostTensor.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace sezmrt {

/// A value of the saved object: what the pickle subset can build.
struct PyObject {
  enum class Kind {
    None,
    Bool,
    Int,
    Float,
    String,
    Bytes,
    Tuple,
    List,
    Dict,
    /// A Python global the pickle refers to (`text` is "module.name").
    Global,
    /// A typed storage: `text` its key in the archive, `storageType` the
    /// global it was saved as (torch.FloatStorage), `integer` its elements.
    Storage,
    /// A tensor over `storage` (of Kind::Storage).
    Tensor,
  };
  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0;
  std::string text;
  /// Tuple and list elements.
  std::vector<const PyObject *> items;
  /// Dict entries, in insertion order.
  std::vector<std::pair<const PyObject *, const PyObject *>> entries;
  /// Storage: the global's name. Tensor: the storage, the element offset
  /// into it, the shape and the strides (in elements).
  std::string storageType;
  const PyObject *storage = nullptr;
  int64_t storageOffset = 0;
  std::vector<int64_t> shape, stride;

  /// The value of string key `key` of a dict, or null (also for a
  /// non-dict).
  const PyObject *get(const std::string &key) const;
  /// What it is, for errors: "a dict of 3 entries", "the string 'abc'",
  /// "a float32 tensor (4, 3)".
  std::string describe() const;
};

/// A parsed checkpoint: the saved object and where each storage's bytes
/// are.
struct TorchCheckpoint {
  const PyObject *root = nullptr;
  /// The file's bytes; storages are ranges of it.
  std::string bytes;
  /// Each storage's (offset, size) in `bytes`, by key.
  std::map<std::string, std::pair<size_t, size_t>> storages;
  /// Every object the pickle built (the graph's links point into these).
  std::vector<std::unique_ptr<PyObject>> objects;
};

/// Parses the bytes of a torch.save file. On failure returns false and sets
/// `error` to a plain-English reason that says where (the zip entry, the
/// pickle's byte offset).
bool parseTorchCheckpoint(std::string bytes, TorchCheckpoint &out,
                          std::string &error);
/// Reads a file and parses it; errors begin with the path.
bool readTorchCheckpoint(const std::string &path, TorchCheckpoint &out,
                         std::string &error);

/// Whether `bytes` begin like a zip archive (a checkpoint, right or wrong).
bool looksLikeZip(const std::string &bytes);

/// The element type a storage type holds (torch.FloatStorage: F32), false
/// where sezm has none for it.
bool storageElementType(const std::string &storageType, ElementType &type);

/// Copies the elements of `tensor` (Kind::Tensor) out of its storage into
/// a dense C-ordered HostTensor; fails for an element type sezm has no
/// tensors of, or a view that reaches past its storage.
bool loadTensor(const TorchCheckpoint &checkpoint, const PyObject &tensor,
                HostTensor &out, std::string &error);

} // namespace sezmrt

#endif // SEZM_SUPPORT_TORCHCHECKPOINT_H

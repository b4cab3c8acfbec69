//===- DPA4Import.h - sezm modules from DeePMD-kit DPA4 checkpoints -*- C++
//-*-===//
//
// Builds the sezm module of a DPA4 energy model from what `dp --pt train`
// writes: `model_params` (the normalised config) says which ops and sizes,
// the state dict gives the weights, re-laid out for sezm's ops. The module
// is written as sezm IR text with named arguments (what `--emit=import`
// shows a user), and every weight as a host tensor of the build's element
// type. A config sezm does not support, a missing, extra or misshapen
// tensor, or a config that contradicts the tensors is an error that names
// the key and its value. Plain C++ (docs/import.md).
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_IMPORT_DPA4IMPORT_H
#define SEZM_IMPORT_DPA4IMPORT_H

#include "SeZM/Support/HostTensor.h"
#include "SeZM/Support/TorchCheckpoint.h"

#include <map>
#include <string>

namespace sezmrt {

/// The element type of an imported module: the model's own `precision`,
/// or one forced (float64 is the reference build).
enum class ImportPrecision { Model, Float32, Float64 };

/// Parses "model", "float32" or "float64"; false for anything else.
bool parseImportPrecision(const std::string &text, ImportPrecision &out);

struct ImportedModel {
  /// The module, as sezm IR: one public function @energy whose weight
  /// arguments are named like the DeePMD-kit modules they come from.
  std::string moduleText;
  /// Each weight argument's tensor, by its sezm.name.
  std::map<std::string, HostTensor> weights;
  /// "float32" or "float64": what the module computes in.
  std::string precision;
  /// One line on what was imported, for the tools to print.
  std::string summary;
};

/// Imports the DPA4 energy model of `checkpoint` (a training checkpoint or
/// a model-only one). On failure returns false and sets `error` to a
/// plain-English reason naming the offending key.
bool importDPA4(const TorchCheckpoint &checkpoint, ImportPrecision precision,
                ImportedModel &out, std::string &error);

} // namespace sezmrt

#endif // SEZM_IMPORT_DPA4IMPORT_H

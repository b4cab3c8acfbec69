//===- Targets.cpp - the loaders sezm fuzzes ------------------------------===//

#include "Targets.h"

#include "SeZM/Import/DPA4Import.h"

#include "SeZM/Support/Artifact.h"
#include "SeZM/Support/Npy.h"
#include "SeZM/Support/Safetensors.h"
#include "SeZM/Support/Structure.h"
#include "SeZM/Support/TorchCheckpoint.h"

using namespace sezmrt;

void sezm::fuzz::safetensors(const uint8_t *data, size_t size) {
  std::map<std::string, HostTensor> tensors;
  std::string error;
  parseSafetensors(std::string(reinterpret_cast<const char *>(data), size),
                   tensors, error);
}

void sezm::fuzz::npy(const uint8_t *data, size_t size) {
  HostTensor tensor;
  std::string error;
  parseNpy(std::string(reinterpret_cast<const char *>(data), size), tensor,
           error);
}

void sezm::fuzz::extendedXyz(const uint8_t *data, size_t size) {
  Structure structure;
  std::string error;
  if (!parseExtendedXyz(std::string(reinterpret_cast<const char *>(data), size),
                        "fuzz.xyz", structure, error))
    return;
  NeighbourGraph graph;
  buildNeighbourGraph(structure, 2.5, graph, error);
}

void sezm::fuzz::artifact(const uint8_t *data, size_t size) {
  Artifact parsed;
  std::string error;
  parseArtifact(std::string(reinterpret_cast<const char *>(data), size), parsed,
                error);
}

void sezm::fuzz::torchCheckpoint(const uint8_t *data, size_t size) {
  TorchCheckpoint checkpoint;
  std::string error;
  if (!parseTorchCheckpoint(
          std::string(reinterpret_cast<const char *>(data), size), checkpoint,
          error))
    return;
  for (const std::unique_ptr<PyObject> &object : checkpoint.objects) {
    if (object->kind != PyObject::Kind::Tensor)
      continue;
    HostTensor tensor;
    loadTensor(checkpoint, *object, tensor, error);
    object->describe();
  }
  // What parses is imported too: the config walk and the weights' checks
  // meet whatever the pickle holds.
  ImportedModel model;
  importDPA4(checkpoint, ImportPrecision::Model, model, error);
}

sezm::fuzz::Target sezm::fuzz::targetNamed(const std::string &name) {
  if (name == "safetensors")
    return safetensors;
  if (name == "npy")
    return npy;
  if (name == "xyz")
    return extendedXyz;
  if (name == "artifact")
    return artifact;
  if (name == "torch")
    return torchCheckpoint;
  return nullptr;
}

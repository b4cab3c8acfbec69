//===- PairSeZM.cpp - LAMMPS pair style for sezm artifacts ----------------===//

#include "PairSeZM.h"

#include "atom.h"
#include "comm.h"
#include "domain.h"
#include "error.h"
#include "force.h"
#include "memory.h"
#include "neigh_list.h"
#include "neighbor.h"
#include "update.h"
#include "utils.h"

// sezmrt::kMinAtomSeparation, the shortest edge libsezm_runtime accepts:
// checked here first so that the error names LAMMPS atom IDs.
#include "SeZM/Support/Structure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

using namespace LAMMPS_NS;
using sezmrt::kMinAtomSeparation;

namespace {
const char *kUsage = "pair_style sezm model.sezm [device auto|cpu|gpu] "
                     "[entry NAME] [cutoff R] [timing yes|no] "
                     "[stages auto|yes|no]";

std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

int outputIndex(sezm_model *model, const std::string &entry, const char *name) {
  int count = sezm_model_output_count(model, entry.c_str());
  for (int i = 0; i < count; ++i)
    if (std::strcmp(sezm_model_output_name(model, entry.c_str(), i), name) == 0)
      return i;
  return -1;
}

bool hasForceOutputs(sezm_model *model, const std::string &entry) {
  return outputIndex(model, entry, "energy") >= 0 &&
         outputIndex(model, entry, "forces") >= 0 &&
         outputIndex(model, entry, "virial") >= 0;
}

/// Threads for work over `centres` atoms: one below 1,024 (starting them
/// would cost more than it saves), else up to 8.
unsigned threadsFor(int centres) {
  if (centres < 1024)
    return 1;
  return std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
}

/// Runs work(t, begin, end) on `threads` threads over contiguous chunks of
/// [0, count), in order.
template <typename Work>
void forEachChunk(int count, unsigned threads, Work &&work) {
  auto bound = [&](unsigned t) {
    return static_cast<int>(int64_t(count) * t / threads);
  };
  if (threads == 1)
    return work(0u, 0, count);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { work(t, bound(t), bound(t + 1)); });
  for (std::thread &thread : pool)
    thread.join();
}

/// Makes `device` a GPU array of at least `count` elements of `dtype`
/// (zeros when it is made), keeping it when it is one already.
bool reserveOnGpu(sezm_tensor &device, sezm_dtype dtype, int64_t count) {
  if (device.data && device.dtype == dtype && device.shape[0] >= count)
    return true;
  sezm_tensor_free(&device);
  std::vector<double> zeros(std::max<int64_t>(count, 1));
  int64_t size = std::max<int64_t>(count, 1);
  sezm_tensor host = sezm_tensor_describe(dtype, 1, &size, zeros.data(), 0);
  return sezm_tensor_to_device(&host, &device) == 0;
}

/// Copies `count` elements of the GPU array `device` into `host` as doubles.
bool downloadAsDouble(const sezm_tensor &device, int64_t count, double *host) {
  sezm_tensor view =
      sezm_tensor_describe(device.dtype, 1, &count, device.data, 1);
  if (device.dtype == SEZM_F64)
    return sezm_tensor_to_host(&view, host) == 0;
  std::vector<float> narrow(count);
  if (sezm_tensor_to_host(&view, narrow.data()))
    return false;
  std::copy(narrow.begin(), narrow.end(), host);
  return true;
}
} // namespace

PairSeZM::PairSeZM(LAMMPS *lmp) : Pair(lmp) {
  single_enable = 0;
  restartinfo = 0;
  one_coeff = 1;
  manybody_flag = 1;
  // Ghost atoms carry no force here, so f.r over local and ghost atoms
  // would miss the lattice shifts: the virial comes from the edges.
  no_virial_fdotr_compute = 1;
  centroidstressflag = CENTROID_AVAIL;
}

PairSeZM::~PairSeZM() {
  sezm_pair_list_free(pairList);
  for (sezm_tensor *t : {&typesOnGpu, &energyOnGpu, &forcesOnGpu, &virialOnGpu})
    sezm_tensor_free(t);
  sezm_model_close(model);
  if (allocated) {
    memory->destroy(setflag);
    memory->destroy(cutsq);
  }
}

void PairSeZM::fail(const std::string &message) {
  error->one(FLERR, "pair_style sezm: " + message);
}

void PairSeZM::requireMetalUnits() {
  if (std::strcmp(update->unit_style, "metal") != 0)
    error->all(FLERR, std::string("pair_style sezm: the model works in "
                                  "A and eV, so it needs 'units metal' "
                                  "(the input has 'units ") +
                          update->unit_style + "')");
}

void PairSeZM::settings(int narg, char **arg) {
  if (narg < 1)
    error->all(FLERR,
               std::string("pair_style sezm: no model; usage: ") + kUsage);
  requireMetalUnits();
  // A pair_style command given again starts from the defaults.
  timing = false;
  stagesAsked = "auto";
  std::string path = arg[0], wantedEntry, deviceName = "auto";
  double wantedCutoff = 0.0;
  for (int i = 1; i < narg; i += 2) {
    std::string key = arg[i];
    if (i + 1 >= narg)
      error->all(FLERR, "pair_style sezm: '" + key +
                            "' needs a value; usage: " + kUsage);
    std::string value = arg[i + 1];
    if (key == "device") {
      if (value != "auto" && value != "cpu" && value != "gpu")
        error->all(FLERR, "pair_style sezm: device '" + value +
                              "' is not auto, cpu or gpu");
      deviceName = value;
    } else if (key == "entry") {
      wantedEntry = value;
    } else if (key == "timing") {
      if (value != "yes" && value != "no")
        error->all(FLERR,
                   "pair_style sezm: timing '" + value + "' is not yes or no");
      timing = value == "yes";
    } else if (key == "stages") {
      if (value != "auto" && value != "yes" && value != "no")
        error->all(FLERR, "pair_style sezm: stages '" + value +
                              "' is not auto, yes or no");
      stagesAsked = value;
    } else if (key == "cutoff") {
      char *end = nullptr;
      wantedCutoff = std::strtod(value.c_str(), &end);
      if (!end || *end || !(wantedCutoff > 0.0) || !std::isfinite(wantedCutoff))
        error->all(FLERR, "pair_style sezm: cutoff '" + value +
                              "' is not a positive number of A");
    } else {
      error->all(FLERR, "pair_style sezm: unknown keyword '" + key +
                            "'; usage: " + kUsage);
    }
  }

  sezm_model_close(model);
  model = nullptr;
  sezm_device device = deviceName == "cpu"   ? SEZM_DEVICE_CPU
                       : deviceName == "gpu" ? SEZM_DEVICE_GPU
                                             : SEZM_DEVICE_AUTO;
  model = sezm_model_open_on(path.c_str(), device);
  if (!model)
    error->all(FLERR, "pair_style sezm: " + std::string(sezm_last_error()));
  modelPath = path;

  entry.clear();
  int entries = sezm_model_entry_count(model);
  if (!wantedEntry.empty()) {
    if (sezm_model_output_count(model, wantedEntry.c_str()) < 0)
      error->all(FLERR, "pair_style sezm: " + path + " has no entry '" +
                            wantedEntry + "'");
    if (!hasForceOutputs(model, wantedEntry))
      error->all(FLERR, "pair_style sezm: entry '" + wantedEntry + "' of " +
                            path +
                            " does not return energy, forces and virial "
                            "(compile the energy with sezm-compile "
                            "--forces-of)");
    entry = wantedEntry;
  } else {
    for (int i = 0; i < entries && entry.empty(); ++i)
      if (hasForceOutputs(model, sezm_model_entry_name(model, i)))
        entry = sezm_model_entry_name(model, i);
    if (entry.empty())
      error->all(FLERR, "pair_style sezm: no entry of " + path +
                            " returns energy, forces and virial (compile "
                            "the energy with sezm-compile --forces-of)");
  }
  // The stages are the entry's energy cut at its block boundaries.
  const std::string forcesSuffix = "_forces";
  stagePrefix = entry.size() > forcesSuffix.size() &&
                        entry.compare(entry.size() - forcesSuffix.size(),
                                      forcesSuffix.size(), forcesSuffix) == 0
                    ? entry.substr(0, entry.size() - forcesSuffix.size())
                    : entry;
  stageWidth = sezm_model_stage_width(model, stagePrefix.c_str());
  int stageCount = sezm_model_stage_count(model, stagePrefix.c_str());
  hasStagePerAtom =
      stageCount > 1 &&
      outputIndex(model,
                  stagePrefix + "_stage" + std::to_string(stageCount - 1) +
                      "_backward",
                  "atom_energy") >= 0;
  hasPerAtom = outputIndex(model, entry, "atom_energy") >= 0 &&
               outputIndex(model, entry, "atom_virial") >= 0;
  doubleForces =
      sezm_model_output_dtype(model, entry.c_str(),
                              outputIndex(model, entry, "forces")) == SEZM_F64;

  double rcut = sezm_model_rcut(model);
  if (rcut > 0.0 && wantedCutoff > 0.0 &&
      std::fabs(wantedCutoff - rcut) > 1e-9 * rcut)
    error->all(FLERR, "pair_style sezm: cutoff " + formatNumber(wantedCutoff) +
                          " A differs from the model's rcut " +
                          formatNumber(rcut) +
                          " A (leave it out to take the model's)");
  if (rcut <= 0.0 && wantedCutoff <= 0.0)
    error->all(FLERR, "pair_style sezm: " + path +
                          " states no cutoff; give one with 'cutoff R'");
  cutoff = rcut > 0.0 ? rcut : wantedCutoff;
  if (sezm_model_type_count(model) < 1)
    error->all(FLERR, "pair_style sezm: " + path +
                          " states no type_map, so LAMMPS types cannot be "
                          "mapped to it by element (compile a DeePMD-kit "
                          "checkpoint, which carries its type_map)");

  if (comm->me == 0) {
    std::string types;
    for (int t = 0; t < sezm_model_type_count(model); ++t)
      types += std::string(t ? " " : "") + sezm_model_type_name(model, t);
    utils::logmesg(
        lmp, "pair_style sezm: " + path + " on the " +
                 (sezm_model_device(model) == SEZM_DEVICE_GPU ? "GPU" : "CPU") +
                 ", entry '" + entry + "' (" +
                 (doubleForces ? "float64" : "float32") + " forces), rcut " +
                 formatNumber(cutoff) + " A, type_map " + types +
                 (hasPerAtom ? ", per-atom energies and virials\n" : "\n"));
  }
}

void PairSeZM::coeff(int narg, char **arg) {
  int ntypes = atom->ntypes;
  if (!allocated) {
    memory->create(setflag, ntypes + 1, ntypes + 1, "pair:setflag");
    memory->create(cutsq, ntypes + 1, ntypes + 1, "pair:cutsq");
    allocated = 1;
  }
  if (!model)
    error->all(FLERR, "pair_style sezm: pair_coeff before pair_style");
  if (narg < 2 || std::strcmp(arg[0], "*") != 0 ||
      std::strcmp(arg[1], "*") != 0)
    error->all(FLERR, "pair_style sezm: pair_coeff takes '* *' and an "
                      "element per atom type, e.g. 'pair_coeff * * O H'");
  int given = narg - 2;
  if (given != ntypes)
    error->all(FLERR, "pair_style sezm: pair_coeff * * gives " +
                          std::to_string(given) + " element name(s) for " +
                          std::to_string(ntypes) + " LAMMPS atom type(s)" +
                          (given < ntypes
                               ? "; LAMMPS type " + std::to_string(given + 1) +
                                     " is not mapped to the model"
                               : ""));
  std::string typeMap;
  for (int t = 0; t < sezm_model_type_count(model); ++t)
    typeMap += std::string(t ? ", " : "") + sezm_model_type_name(model, t);
  modelTypeOf.assign(ntypes + 1, -1);
  for (int type = 1; type <= ntypes; ++type) {
    std::string name = arg[type + 1];
    for (int t = 0; t < sezm_model_type_count(model); ++t)
      if (name == sezm_model_type_name(model, t))
        modelTypeOf[type] = t;
    if (modelTypeOf[type] < 0)
      error->all(FLERR, "pair_style sezm: element '" + name +
                            "' (LAMMPS type " + std::to_string(type) +
                            ") is not in the type_map of " + modelPath + " (" +
                            typeMap + ")");
  }
  for (int i = 1; i <= ntypes; ++i)
    for (int j = 1; j <= ntypes; ++j)
      setflag[i][j] = 1;
}

void PairSeZM::init_style() {
  requireMetalUnits();
  int ranks = comm->nprocs;
  staged = stagesAsked == "yes" || (stagesAsked == "auto" && ranks > 1);
  if (!staged && ranks > 1)
    error->all(FLERR, "pair_style sezm: 'stages no' runs on one MPI rank "
                      "(this run has " +
                          std::to_string(ranks) + ")");
  if (staged && stageWidth < 1)
    error->all(FLERR, "pair_style sezm: " +
                          (ranks > 1 ? "this run has " + std::to_string(ranks) +
                                           " MPI ranks, which need"
                                     : std::string("'stages yes' needs")) +
                          " the model in stages, and " + modelPath +
                          " has none of @" + stagePrefix +
                          " (compile it with sezm-compile --stages)");
  if (staged && force->newton_pair == 0)
    error->all(FLERR, "pair_style sezm: in stages the ghost atoms' forces "
                      "go to their owners through LAMMPS's reverse "
                      "communication, which needs 'newton on' (the "
                      "default)");
  comm_forward = comm_reverse = staged ? static_cast<int>(stageWidth) : 0;
  if (staged && comm->me == 0)
    utils::logmesg(
        lmp,
        "pair_style sezm: " + std::to_string(ranks) +
            (ranks == 1 ? " MPI rank" : " MPI ranks") + ": the model in " +
            std::to_string(sezm_model_stage_count(model, stagePrefix.c_str())) +
            " stages, " + std::to_string(stageWidth) +
            " node features exchanged per ghost atom "
            "between them\n");
  if (!atom->tag_enable)
    error->all(FLERR, "pair_style sezm needs atom IDs (atom_modify id yes)");
  neighbor->add_request(this, NeighConst::REQ_FULL);
}

double PairSeZM::init_one(int, int) { return cutoff; }

void PairSeZM::finish() {
  if (!timing || timedCalls == 0)
    return;
  if (comm->me == 0)
    utils::logmesg(
        lmp,
        "pair_style sezm timing: " + std::to_string(timedCalls) +
            " calls, graph " + formatNumber(1e3 * graphSeconds / timedCalls) +
            " ms and entry " + formatNumber(1e3 * entrySeconds / timedCalls) +
            " ms per call (the entry with its copies); the graph's "
            "ordering of neighbours " +
            formatNumber(orderings ? 1e3 * orderSeconds / orderings : 0) +
            " ms at each of " + std::to_string(orderings) +
            " neighbour-list builds\n");
  graphSeconds = entrySeconds = orderSeconds = 0.0;
  timedCalls = orderings = 0;
}

void PairSeZM::failPair(int i, int j, double distanceSq) {
  tagint *tag = atom->tag;
  if (!std::isfinite(distanceSq))
    fail("atom " + std::to_string(tag[i]) + " or atom " +
         std::to_string(tag[j]) +
         " has a position that is not a finite "
         "number");
  fail("atoms " + std::to_string(tag[i]) + " and " + std::to_string(tag[j]) +
       " are " + formatNumber(std::sqrt(distanceSq)) +
       " A apart: atoms closer than " + formatNumber(kMinAtomSeparation) +
       " A are taken for an error in the structure (they would give "
       "unbounded forces)");
}

void PairSeZM::orderCandidates() {
  int nlocal = atom->nlocal;
  double **x = atom->x;
  tagint *tag = atom->tag;
  tagint maxTag = 0;
  for (int i = 0; i < nlocal; ++i)
    maxTag = std::max(maxTag, tag[i]);
  // On one rank every ghost atom is a periodic image of the local atom with
  // its ID: the graph's node for it is that local atom.
  localOfTag.assign(static_cast<size_t>(maxTag) + 1, -1);
  for (int i = 0; i < nlocal; ++i)
    localOfTag[tag[i]] = i;

  int centres = list->inum;
  centreNode.resize(centres);
  candidateStart.assign(centres + 1, 0);
  for (int c = 0; c < centres; ++c) {
    centreNode[c] = list->ilist[c];
    candidateStart[c + 1] = candidateStart[c] + list->numneigh[centreNode[c]];
  }
  candidateRow.resize(candidateStart[centres]);
  candidateSource.resize(candidateStart[centres]);

  // sezm's order (by source, then periodic image), as sezm-run's graph has
  // it, so that the sums over a centre's edges do not depend on LAMMPS's
  // binning: a key per neighbour, the source above the image's three cell
  // counts (10 bits each).
  const double *hInv = domain->h_inv;
  unsigned threads = threadsFor(centres);
  std::vector<std::string> errors(threads);
  forEachChunk(centres, threads, [&](unsigned t, int begin, int end) {
    std::vector<std::pair<uint64_t, int>> keyed;
    for (int c = begin; c < end; ++c) {
      int i = centreNode[c];
      const int *neighbours = list->firstneigh[i];
      keyed.clear();
      for (int jj = 0; jj < list->numneigh[i]; ++jj) {
        int j = neighbours[jj] & NEIGHMASK;
        int owner = j < nlocal                        ? j
                    : tag[j] >= 0 && tag[j] <= maxTag ? localOfTag[tag[j]]
                                                      : -1;
        if (owner < 0) {
          errors[t] = "ghost atom with ID " + std::to_string(tag[j]) +
                      " has no local atom with that ID";
          return;
        }
        double shift[3];
        for (int k = 0; k < 3; ++k)
          shift[k] = x[j][k] - x[owner][k];
        double cells[3] = {
            hInv[0] * shift[0] + hInv[5] * shift[1] + hInv[4] * shift[2],
            hInv[1] * shift[1] + hInv[3] * shift[2], hInv[2] * shift[2]};
        uint64_t key = static_cast<uint64_t>(owner);
        for (double cell : cells) {
          long image = std::lround(cell);
          if (image < -512 || image > 511) {
            errors[t] = "an edge reaches " + std::to_string(image) +
                        " cells away: the box is too thin for the cutoff";
            return;
          }
          key = key << 10 | static_cast<uint64_t>(image + 512);
        }
        keyed.push_back({key, j});
      }
      std::sort(keyed.begin(), keyed.end());
      int64_t p = candidateStart[c];
      for (const auto &[key, j] : keyed) {
        candidateRow[p] = j;
        candidateSource[p++] = static_cast<int32_t>(key >> 30);
      }
    }
  });
  for (const std::string &message : errors)
    if (!message.empty())
      fail(message);
  candidatesBuild = neighbor->ncalls;
  pairListStale = true;
}

void PairSeZM::prepareStep() {
  int nlocal = atom->nlocal;
  int *type = atom->type;
  modelTypes.resize(nlocal);
  for (int i = 0; i < nlocal; ++i)
    modelTypes[i] = modelTypeOf[type[i]];
  // Atom indices and the neighbour list hold until LAMMPS builds the list
  // again; only the cutoff test is redone each step.
  if (candidatesBuild != neighbor->ncalls) {
    auto started = std::chrono::steady_clock::now();
    orderCandidates();
    orderSeconds += std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - started)
                        .count();
    ++orderings;
  }
}

void PairSeZM::buildGraph() {
  double **x = atom->x;
  // The cutoff test in two passes over chunks of centres on threads: count
  // each chunk's edges, then fill them in at the chunk's offset, so the
  // edges keep their order.
  int centres = static_cast<int>(centreNode.size());
  unsigned threads = threadsFor(centres);
  double cutoffSq = cutoff * cutoff;
  auto distanceSq = [&](int i, int j, double v[3]) {
    for (int k = 0; k < 3; ++k)
      v[k] = x[j][k] - x[i][k];
    return v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  };
  std::vector<size_t> offsets(threads + 1, 0);
  std::vector<std::pair<int, int>> badPair(threads, {-1, -1});
  forEachChunk(centres, threads, [&](unsigned t, int begin, int end) {
    size_t count = 0;
    for (int c = begin; c < end; ++c) {
      int i = centreNode[c];
      for (int64_t p = candidateStart[c]; p < candidateStart[c + 1]; ++p) {
        double v[3];
        double r2 = distanceSq(i, candidateRow[p], v);
        if (!std::isfinite(r2) ||
            (r2 < cutoffSq && r2 < kMinAtomSeparation * kMinAtomSeparation)) {
          badPair[t] = {i, candidateRow[p]};
          return;
        }
        count += r2 < cutoffSq;
      }
    }
    offsets[t + 1] = count;
  });
  for (const auto &[i, j] : badPair)
    if (i >= 0) {
      double v[3];
      failPair(i, j, distanceSq(i, j, v));
    }
  for (unsigned t = 0; t < threads; ++t)
    offsets[t + 1] += offsets[t];
  size_t nedges = offsets[threads];
  edgeIndex.resize(2 * nedges);
  edgeVecs.resize(3 * nedges);
  forEachChunk(centres, threads, [&](unsigned t, int begin, int end) {
    size_t e = offsets[t];
    for (int c = begin; c < end; ++c) {
      int i = centreNode[c];
      for (int64_t p = candidateStart[c]; p < candidateStart[c + 1]; ++p) {
        double v[3];
        if (!(distanceSq(i, candidateRow[p], v) < cutoffSq))
          continue;
        std::copy(v, v + 3, &edgeVecs[3 * e]);
        edgeIndex[e] = candidateSource[p];
        edgeIndex[nedges + e] = i;
        ++e;
      }
    }
  });
}

void PairSeZM::selectEdgesOnGpu() {
  if (pairListStale) {
    sezm_pair_list_free(pairList);
    pairList = sezm_pair_list_create(
        atom->nlocal, static_cast<int64_t>(centreNode.size()),
        centreNode.data(), candidateStart.data(), candidateRow.data(),
        candidateSource.data());
    if (!pairList)
      fail(sezm_last_error());
    pairListStale = false;
  }
  int64_t bad = -1;
  int status = sezm_pair_list_select(pairList, atom->nlocal + atom->nghost,
                                     &atom->x[0][0], cutoff,
                                     doubleForces ? 1 : 0, &gpuEdges, &bad);
  if (status == 2) {
    size_t c =
        std::upper_bound(candidateStart.begin(), candidateStart.end(), bad) -
        candidateStart.begin() - 1;
    int i = centreNode[c], j = candidateRow[bad];
    double r2 = 0.0;
    for (int k = 0; k < 3; ++k)
      r2 += (atom->x[j][k] - atom->x[i][k]) * (atom->x[j][k] - atom->x[i][k]);
    failPair(i, j, r2);
  }
  if (status)
    fail(sezm_last_error());
}

void PairSeZM::runHostEntry(bool perAtom) {
  int64_t natoms = atom->nlocal, nedges = edgeIndex.size() / 2;
  // The GPU path reads the positions where LAMMPS keeps them; the host
  // entry takes the local atoms' alone.
  coords.assign(&atom->x[0][0], &atom->x[0][0] + 3 * natoms);
  forces.assign(3 * natoms, 0.0);
  atomEnergy.assign(perAtom ? natoms : 0, 0.0);
  atomVirial.assign(perAtom ? 9 * natoms : 0, 0.0);
  if (sezm_model_compute_edges(
          model, entry.c_str(), natoms, nedges, sezm_model_type_count(model),
          coords.data(), modelTypes.data(), edgeIndex.data(), edgeVecs.data(),
          &energy, forces.data(), modelVirial,
          perAtom ? atomEnergy.data() : nullptr,
          perAtom ? atomVirial.data() : nullptr))
    fail(sezm_last_error());
}

void PairSeZM::runDeviceEntry() {
  int64_t natoms = atom->nlocal;
  sezm_dtype real = doubleForces ? SEZM_F64 : SEZM_F32;
  if (modelTypes != uploadedTypes) {
    sezm_tensor_free(&typesOnGpu);
    int64_t count = natoms;
    sezm_tensor host =
        sezm_tensor_describe(SEZM_I32, 1, &count, modelTypes.data(), 0);
    if (sezm_tensor_to_device(&host, &typesOnGpu))
      fail(sezm_last_error());
    uploadedTypes = modelTypes;
  }
  sezm_tensor coord{}, index{}, vectors{};
  if (!reserveOnGpu(energyOnGpu, real, 1) ||
      !reserveOnGpu(forcesOnGpu, real, 3 * natoms) ||
      !reserveOnGpu(virialOnGpu, real, 9) ||
      sezm_pair_list_array(pairList, "coord", &coord) ||
      sezm_pair_list_array(pairList, "edge_index", &index) ||
      sezm_pair_list_array(pairList, "edge_vec", &vectors))
    fail(sezm_last_error());
  int ntypes = sezm_model_type_count(model);
  const auto *types = static_cast<const int32_t *>(typesOnGpu.data);
  const auto *edgeIndexOnGpu = static_cast<const int64_t *>(index.data);
  int failed =
      doubleForces
          ? sezm_model_compute_edges_gpu_f64(
                model, entry.c_str(), natoms, gpuEdges, ntypes,
                static_cast<const double *>(coord.data), types, edgeIndexOnGpu,
                static_cast<const double *>(vectors.data),
                static_cast<double *>(energyOnGpu.data),
                static_cast<double *>(forcesOnGpu.data),
                static_cast<double *>(virialOnGpu.data))
          : sezm_model_compute_edges_gpu(
                model, entry.c_str(), natoms, gpuEdges, ntypes,
                static_cast<const float *>(coord.data), types, edgeIndexOnGpu,
                static_cast<const float *>(vectors.data),
                static_cast<float *>(energyOnGpu.data),
                static_cast<float *>(forcesOnGpu.data),
                static_cast<float *>(virialOnGpu.data));
  forces.resize(3 * natoms);
  if (failed || !downloadAsDouble(energyOnGpu, 1, &energy) ||
      !downloadAsDouble(forcesOnGpu, 3 * natoms, forces.data()) ||
      !downloadAsDouble(virialOnGpu, 9, modelVirial))
    fail(sezm_last_error());
}

void PairSeZM::compute(int eflag, int vflag) {
  ev_init(eflag, vflag);
  // Every rank takes part in a staged run's exchanges, one with no local
  // atoms too.
  if (staged)
    return computeStaged();
  int nlocal = atom->nlocal;
  if (nlocal == 0)
    return;
  auto started = std::chrono::steady_clock::now();
  prepareStep();
  bool perAtom = eflag_atom || vflag_atom || cvflag_atom;
  if (perAtom && !hasPerAtom)
    fail("this run asks for per-atom energies or virials (compute pe/atom, "
         "stress/atom, ...), and entry '" +
         entry + "' of " + modelPath +
         " does not return them: compile it with sezm-compile --per-atom");
  // Per-atom terms come from the host entry, which copies on a GPU model.
  bool onGpu = sezm_model_device(model) == SEZM_DEVICE_GPU && !perAtom;
  if (onGpu)
    selectEdgesOnGpu();
  else
    buildGraph();
  auto built = std::chrono::steady_clock::now();
  if (onGpu)
    runDeviceEntry();
  else
    runHostEntry(perAtom);
  recordTiming(started, built);
  addOutputs(nlocal, nullptr);
}

void PairSeZM::recordTiming(std::chrono::steady_clock::time_point started,
                            std::chrono::steady_clock::time_point built) {
  if (!timing)
    return;
  graphSeconds += std::chrono::duration<double>(built - started).count();
  entrySeconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - built)
          .count();
  ++timedCalls;
}

void PairSeZM::addOutputs(int nodes, const int *atomOfNode) {
  auto atomAt = [&](int n) { return atomOfNode ? atomOfNode[n] : n; };
  // In stages a ghost's force and per-atom virial reach its owner through
  // LAMMPS (newton_pair on; compute stress/atom's reverse communication).
  double **f = atom->f;
  for (int n = 0; n < nodes; ++n)
    for (int k = 0; k < 3; ++k)
      f[atomAt(n)][k] += forces[3 * n + k];
  if (eflag_global)
    eng_vdwl += energy;
  if (eflag_atom)
    for (int i = 0; i < atom->nlocal; ++i)
      eatom[i] += atomEnergy[i];
  // LAMMPS orders a virial xx, yy, zz, xy, xz, yz (and a centroid one then
  // yx, zx, zy); sezm's 3x3 is DeePMD-kit's, whose per-atom [b][a] is
  // LAMMPS's ab. The global one is symmetric.
  if (vflag_global) {
    const int order[6] = {0, 4, 8, 1, 2, 5};
    for (int c = 0; c < 6; ++c)
      virial[c] += modelVirial[order[c]];
  }
  const int atomOrder[9] = {0, 4, 8, 3, 6, 7, 1, 2, 5};
  if (vflag_atom)
    for (int n = 0; n < nodes; ++n)
      for (int c = 0; c < 6; ++c)
        vatom[atomAt(n)][c] += atomVirial[9 * n + atomOrder[c]];
  if (cvflag_atom)
    for (int n = 0; n < nodes; ++n)
      for (int c = 0; c < 9; ++c)
        cvatom[atomAt(n)][c] += atomVirial[9 * n + atomOrder[c]];
}

void PairSeZM::buildStagedGraph() {
  double **x = atom->x;
  tagint *tag = atom->tag;
  int nlocal = atom->nlocal, nall = nlocal + atom->nghost;
  double cutoffSq = cutoff * cutoff;
  nodeAtom.resize(nlocal);
  nodeOf.assign(nall, -1);
  for (int i = 0; i < nlocal; ++i)
    nodeAtom[i] = nodeOf[i] = i;
  edgeVecs.clear();
  std::vector<int> sources;
  std::vector<int64_t> src, dst;
  // Each centre's neighbours by atom ID, then position (periodic images of
  // one atom): an order that does not depend on LAMMPS's binning.
  auto before = [&](int a, int b) {
    if (tag[a] != tag[b])
      return tag[a] < tag[b];
    return std::lexicographical_compare(x[a], x[a] + 3, x[b], x[b] + 3);
  };
  for (int c = 0; c < list->inum; ++c) {
    int i = list->ilist[c];
    const int *neighbours = list->firstneigh[i];
    sources.clear();
    for (int jj = 0; jj < list->numneigh[i]; ++jj) {
      int j = neighbours[jj] & NEIGHMASK;
      double r2 = 0.0;
      for (int k = 0; k < 3; ++k)
        r2 += (x[j][k] - x[i][k]) * (x[j][k] - x[i][k]);
      if (!std::isfinite(r2) ||
          (r2 < cutoffSq && r2 < kMinAtomSeparation * kMinAtomSeparation))
        failPair(i, j, r2);
      if (r2 < cutoffSq)
        sources.push_back(j);
    }
    std::sort(sources.begin(), sources.end(), before);
    for (int j : sources) {
      if (nodeOf[j] < 0) {
        nodeOf[j] = static_cast<int>(nodeAtom.size());
        nodeAtom.push_back(j);
      }
      src.push_back(nodeOf[j]);
      dst.push_back(i);
      for (int k = 0; k < 3; ++k)
        edgeVecs.push_back(x[j][k] - x[i][k]);
    }
  }
  edgeIndex = std::move(src);
  edgeIndex.insert(edgeIndex.end(), dst.begin(), dst.end());
}

void PairSeZM::computeStaged() {
  // Every rank is asked the same, so all of them stop here.
  bool perAtom = eflag_atom || vflag_atom || cvflag_atom;
  if (perAtom && !hasStagePerAtom)
    error->all(FLERR, "pair_style sezm: this run asks for per-atom energies "
                      "or virials (compute pe/atom, stress/atom, ...), and "
                      "the stages of " +
                          modelPath +
                          " do not return them: compile it with "
                          "sezm-compile --stages --per-atom");
  auto started = std::chrono::steady_clock::now();
  int nlocal = atom->nlocal;
  buildStagedGraph();
  int nodes = static_cast<int>(nodeAtom.size());
  int *type = atom->type;
  double **x = atom->x;
  modelTypes.resize(nodes);
  coords.resize(3 * static_cast<size_t>(nodes));
  for (int n = 0; n < nodes; ++n) {
    modelTypes[n] = modelTypeOf[type[nodeAtom[n]]];
    std::copy(x[nodeAtom[n]], x[nodeAtom[n]] + 3, &coords[3 * n]);
  }
  auto built = std::chrono::steady_clock::now();
  forces.assign(3 * static_cast<size_t>(nodes), 0.0);
  atomEnergy.assign(perAtom ? nlocal : 0, 0.0);
  atomVirial.assign(perAtom ? 9 * static_cast<size_t>(nodes) : 0, 0.0);
  int64_t nedges = static_cast<int64_t>(edgeIndex.size() / 2);
  if (sezm_model_compute_edges_staged(
          model, stagePrefix.c_str(), nodes, nlocal, nedges,
          sezm_model_type_count(model), coords.data(), modelTypes.data(),
          edgeIndex.data(), edgeVecs.data(), forwardExchange, reverseExchange,
          this, &energy, forces.data(), modelVirial,
          perAtom ? atomEnergy.data() : nullptr,
          perAtom ? atomVirial.data() : nullptr))
    fail(sezm_last_error());
  recordTiming(started, built);
  addOutputs(nodes, nodeAtom.data());
}

void PairSeZM::forwardExchange(void *self, double *rows, int64_t nodes,
                               int64_t width) {
  auto *pair = static_cast<PairSeZM *>(self);
  int nall = pair->atom->nlocal + pair->atom->nghost;
  std::vector<double> &atomRows = pair->atomRows;
  atomRows.assign(static_cast<size_t>(nall) * width, 0.0);
  // The own atoms' rows go out; the ghosts' come back.
  int nlocal = pair->atom->nlocal;
  std::copy(rows, rows + static_cast<int64_t>(nlocal) * width,
            atomRows.begin());
  pair->comm->forward_comm(pair);
  for (int64_t n = nlocal; n < nodes; ++n)
    std::copy_n(&atomRows[pair->nodeAtom[n] * width], width, rows + n * width);
}

void PairSeZM::reverseExchange(void *self, double *rows, int64_t nodes,
                               int64_t width) {
  auto *pair = static_cast<PairSeZM *>(self);
  int nall = pair->atom->nlocal + pair->atom->nghost;
  std::vector<double> &atomRows = pair->atomRows;
  atomRows.assign(static_cast<size_t>(nall) * width, 0.0);
  for (int64_t n = 0; n < nodes; ++n)
    std::copy_n(rows + n * width, width, &atomRows[pair->nodeAtom[n] * width]);
  pair->comm->reverse_comm(pair);
  int nlocal = pair->atom->nlocal;
  std::copy_n(atomRows.begin(), static_cast<int64_t>(nlocal) * width, rows);
}

int PairSeZM::pack_forward_comm(int n, int *list, double *buf, int, int *) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    const double *row = &atomRows[static_cast<int64_t>(list[i]) * stageWidth];
    for (int64_t w = 0; w < stageWidth; ++w)
      buf[m++] = row[w];
  }
  return m;
}

void PairSeZM::unpack_forward_comm(int n, int first, double *buf) {
  std::copy(buf, buf + n * stageWidth,
            &atomRows[static_cast<int64_t>(first) * stageWidth]);
}

int PairSeZM::pack_reverse_comm(int n, int first, double *buf) {
  const double *rows = &atomRows[static_cast<int64_t>(first) * stageWidth];
  std::copy(rows, rows + n * stageWidth, buf);
  return static_cast<int>(n * stageWidth);
}

void PairSeZM::unpack_reverse_comm(int n, int *list, double *buf) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    double *row = &atomRows[static_cast<int64_t>(list[i]) * stageWidth];
    for (int64_t w = 0; w < stageWidth; ++w)
      row[w] += buf[m++];
  }
}

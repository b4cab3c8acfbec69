//===- PairSeZM.h - LAMMPS pair style for sezm artifacts --------*- C++ -*-===//
//
// pair_style sezm model.sezm [device auto|cpu|gpu] [entry NAME] [cutoff R]
//                 [timing yes|no] [stages auto|yes|no]
// pair_coeff * * O H
//
// Runs an artifact written by sezm-compile as a LAMMPS pair style, through
// libsezm_runtime's C API alone (no MLIR, no Python). The message-passing
// graph is built over the local atoms: a neighbour that is a ghost atom
// stands for the local atom with its ID, and its edge keeps the ghost's
// position, so an edge to a periodic image carries its lattice shift. This
// is the graph DeePMD-kit's compute_edges path builds, and the one sezm-run
// builds from the periodic structure, so every block of message passing
// sees the same neighbours. Forces land on local atoms only and the virial
// comes from the edge vectors (not from f.r, which would miss the shifts).
//
// On several MPI ranks (or with `stages yes`) the model runs in stages (an
// artifact of sezm-compile --stages): the nodes are the local and the ghost
// atoms, the edges go from any node to a local centre, and between two
// stages the ghosts take their owners' node features through LAMMPS's
// forward communication; in the backward their gradients go back to the
// owners through reverse communication, and their forces through LAMMPS's
// own (newton_pair on).
//
//===----------------------------------------------------------------------===//

#ifndef SEZM_RUNTIME_LAMMPS_PAIRSEZM_H
#define SEZM_RUNTIME_LAMMPS_PAIRSEZM_H

#include "pair.h"

#include "sezm_runtime.h"

#include <chrono>
#include <string>
#include <vector>

namespace LAMMPS_NS {

class PairSeZM : public Pair {
public:
  explicit PairSeZM(LAMMPS *lmp);
  ~PairSeZM() override;

  void settings(int narg, char **arg) override;
  void coeff(int narg, char **arg) override;
  void init_style() override;
  double init_one(int i, int j) override;
  void compute(int eflag, int vflag) override;
  int pack_forward_comm(int n, int *list, double *buf, int pbc_flag,
                        int *pbc) override;
  void unpack_forward_comm(int n, int first, double *buf) override;
  int pack_reverse_comm(int n, int first, double *buf) override;
  void unpack_reverse_comm(int n, int *list, double *buf) override;
  /// With `timing yes`: the run's time per call in building the graph and
  /// in the entry.
  void finish() override;

private:
  /// Each centre's neighbours in sezm's edge order, with the local atom
  /// each stands for: redone when LAMMPS builds its neighbour list again.
  void orderCandidates();
  /// Fills modelTypes, and orders the candidates when LAMMPS
  /// has built its list since.
  void prepareStep();
  /// Fills edgeIndex and edgeVecs on the host: the candidates within the
  /// cutoff.
  void buildGraph();
  /// The same on the GPU (the candidates there once per list build).
  void selectEdgesOnGpu();
  /// Refuses the pair of LAMMPS indices i, j: closer than the runtime
  /// accepts, or not a finite distance apart; names the atoms by ID.
  [[noreturn]] void failPair(int i, int j, double distanceSq);
  /// Energy, forces and virial (and per-atom terms where asked) through the
  /// host entry, on whichever device the model runs.
  void runHostEntry(bool perAtom);
  /// Energy, forces and virial through the device-resident entry on the
  /// edges that selectEdgesOnGpu left there.
  void runDeviceEntry();
  /// The staged run: the graph over local and ghost atoms, each stage
  /// through the runtime with the exchanges between them.
  void computeStaged();
  /// Fills edgeIndex and edgeVecs with the edges from every atom within the
  /// cutoff of a local centre, each centre's by atom ID and position, and
  /// nodeAtom with the graph's nodes: the local atoms, then the ghosts that
  /// are the source of an edge (the others would be computed for nothing).
  void buildStagedGraph();
  static void forwardExchange(void *self, double *rows, int64_t natoms,
                              int64_t width);
  static void reverseExchange(void *self, double *rows, int64_t natoms,
                              int64_t width);
  /// With `timing yes`: adds a call's time building the graph (from
  /// `started` to `built`) and in the entry (since `built`).
  void recordTiming(std::chrono::steady_clock::time_point started,
                    std::chrono::steady_clock::time_point built);
  /// Adds the entry's outputs (forces, energy, virial, per-atom terms) to
  /// LAMMPS's, row n of them to atom atomOfNode[n] (row n to atom n where
  /// null).
  void addOutputs(int nodes, const int *atomOfNode);
  void requireMetalUnits();
  [[noreturn]] void fail(const std::string &message);

  sezm_model *model = nullptr;
  std::string modelPath;
  std::string entry;
  double cutoff = 0.0;
  bool hasPerAtom = false;
  bool doubleForces = false;
  bool timing = false;
  /// Whether the run is in stages, and what `stages` asked for.
  bool staged = false;
  std::string stagesAsked = "auto";
  /// The stages' energy function (the entry without "_forces") and the
  /// width of their node features.
  std::string stagePrefix;
  int64_t stageWidth = 0;
  /// Whether the stages return per-atom energies and virials.
  bool hasStagePerAtom = false;
  /// The graph's nodes as LAMMPS atom indices, and the node of each LAMMPS
  /// atom (-1: none).
  std::vector<int> nodeAtom, nodeOf;
  /// The rows an exchange moves, by LAMMPS atom index (nall x stageWidth):
  /// the nodes' rows are put there for LAMMPS's communication and taken
  /// back after it.
  std::vector<double> atomRows;
  double graphSeconds = 0.0, entrySeconds = 0.0, orderSeconds = 0.0;
  long timedCalls = 0, orderings = 0;
  /// LAMMPS atom type (1-based) -> the model's type index.
  std::vector<int> modelTypeOf;

  std::vector<double> coords;
  std::vector<int32_t> modelTypes;
  /// The candidates in sezm's edge order: centre c is LAMMPS's local atom
  /// centreNode[c] and has candidates [candidateStart[c],
  /// candidateStart[c + 1]), each LAMMPS's index of the neighbour (local or
  /// ghost) and the local atom it is (an image of).
  std::vector<int32_t> centreNode, candidateRow, candidateSource;
  std::vector<int64_t> candidateStart;
  bigint candidatesBuild = -1; ///< neighbor->ncalls they were ordered at.
  std::vector<int> localOfTag;
  /// Host edges (CPU and per-atom runs): rows src (the neighbour's local
  /// atom), then dst (the centre).
  std::vector<int64_t> edgeIndex;
  std::vector<double> edgeVecs;

  /// The GPU side: the candidates (stale until uploaded after a list
  /// build), the types as last uploaded, and the outputs, all kept between
  /// calls.
  sezm_pair_list *pairList = nullptr;
  bool pairListStale = true;
  int64_t gpuEdges = 0;
  std::vector<int32_t> uploadedTypes;
  sezm_tensor typesOnGpu{}, energyOnGpu{}, forcesOnGpu{}, virialOnGpu{};

  double energy = 0.0;
  std::vector<double> forces, atomEnergy, atomVirial;
  double modelVirial[9] = {};
};

} // namespace LAMMPS_NS

#endif // SEZM_RUNTIME_LAMMPS_PAIRSEZM_H

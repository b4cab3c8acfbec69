//===- md_engine_example.cpp - what an MD engine does with an artifact ----===//
//
// sezm-md-example MODEL.sezm STRUCTURE.xyz [--species H,O] [--cutoff 6]
//     [--entry energy_forces] [--steps 10] [--double] [--device cpu|gpu]
//     [--output-dir DIR]
//
// Loads a compiled artifact with libsezm_runtime alone (no MLIR, no LLVM),
// builds the neighbour list the way an engine hands it over (an edge index
// and edge vectors), and runs --steps steps. On the GPU it puts the arrays
// there once and calls the device-resident entry
// sezm_model_compute_edges_gpu: energy, forces and virial come back in
// device arrays (--double: sezm_model_compute_edges_gpu_f64, as LAMMPS holds
// its arrays). On the CPU (no GPU, or --device cpu) it calls the host entry
// sezm_model_compute_edges with double arrays. Prints the energy, the
// virial and the median time of a step; --output-dir writes energy.npy,
// forces.npy and virial.npy to compare with sezm-run.
//
//===----------------------------------------------------------------------===//

#include "sezm_runtime.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {
struct Atoms {
  std::vector<std::array<double, 3>> positions;
  std::vector<int32_t> types;
  std::array<double, 3> box{};
};

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "sezm-md-example: %s\n", message.c_str());
  std::exit(1);
}

/// Extended XYZ with an orthorhombic Lattice="a 0 0 0 b 0 0 0 c".
Atoms readXyz(const std::string &path,
              const std::vector<std::string> &species) {
  std::ifstream in(path);
  if (!in)
    fail("cannot read " + path);
  Atoms atoms;
  std::string line;
  long count = 0;
  if (!std::getline(in, line) || (count = std::atol(line.c_str())) <= 0)
    fail(path + ":1: expected the atom count");
  std::getline(in, line);
  size_t lattice = line.find("Lattice=\"");
  if (lattice == std::string::npos)
    fail(path + ":2: expected Lattice=\"...\" (a periodic box)");
  std::istringstream cell(line.substr(lattice + 9));
  double m[9];
  for (double &v : m)
    if (!(cell >> v))
      fail(path + ":2: expected 9 numbers in Lattice");
  if (m[1] != 0 || m[2] != 0 || m[3] != 0 || m[5] != 0 || m[6] != 0 ||
      m[7] != 0)
    fail(path + ":2: this example takes orthorhombic cells only");
  atoms.box = {m[0], m[4], m[8]};
  for (long i = 0; i < count; ++i) {
    if (!std::getline(in, line))
      fail(path + ": " + std::to_string(count) + " atoms announced, " +
           std::to_string(i) + " found");
    std::istringstream fields(line);
    std::string name;
    std::array<double, 3> p;
    if (!(fields >> name >> p[0] >> p[1] >> p[2]))
      fail(path + ":" + std::to_string(i + 3) + ": expected species x y z");
    auto type = std::find(species.begin(), species.end(), name);
    if (type == species.end())
      fail(path + ":" + std::to_string(i + 3) + ": species '" + name +
           "' is not one of the model's (or --species)");
    atoms.positions.push_back(p);
    atoms.types.push_back(static_cast<int32_t>(type - species.begin()));
  }
  return atoms;
}

/// Every ordered pair and periodic image within the cutoff (an atom and
/// itself untranslated excepted): edge_index as (2, E) rows src, dst and
/// edge_vec = r[src] - r[dst] + shift. Returns E.
int64_t neighbours(const Atoms &atoms, double cutoff,
                   std::vector<int64_t> &edgeIndex,
                   std::vector<double> &edgeVec) {
  std::vector<int64_t> src, dst;
  std::array<int, 3> reach;
  for (int k = 0; k < 3; ++k)
    reach[k] = static_cast<int>(std::ceil(cutoff / atoms.box[k]));
  int64_t n = atoms.positions.size();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int a = -reach[0]; a <= reach[0]; ++a)
        for (int b = -reach[1]; b <= reach[1]; ++b)
          for (int c = -reach[2]; c <= reach[2]; ++c) {
            if (i == j && a == 0 && b == 0 && c == 0)
              continue;
            std::array<double, 3> v;
            int image[3] = {a, b, c};
            double r2 = 0;
            for (int k = 0; k < 3; ++k) {
              v[k] = atoms.positions[j][k] - atoms.positions[i][k] +
                     image[k] * atoms.box[k];
              r2 += v[k] * v[k];
            }
            if (r2 >= cutoff * cutoff)
              continue;
            src.push_back(j);
            dst.push_back(i);
            for (double x : v)
              edgeVec.push_back(x);
          }
  edgeIndex = src;
  edgeIndex.insert(edgeIndex.end(), dst.begin(), dst.end());
  return static_cast<int64_t>(src.size());
}

sezm_tensor onDevice(sezm_dtype dtype, std::vector<int64_t> shape,
                     const void *data) {
  sezm_tensor host = sezm_tensor_describe(dtype, static_cast<int>(shape.size()),
                                          shape.data(), data, 0);
  sezm_tensor device{};
  if (sezm_tensor_to_device(&host, &device))
    fail(sezm_last_error());
  return device;
}

template <typename Real>
void writeNpy(const std::string &path, const std::vector<Real> &values,
              const std::string &shape) {
  std::string header = std::string("{'descr': '") +
                       (sizeof(Real) == 8 ? "<f8" : "<f4") +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  uint16_t length = static_cast<uint16_t>(header.size());
  out.write("\x93NUMPY\x01\x00", 8);
  out.write(reinterpret_cast<const char *>(&length), 2);
  out << header;
  out.write(reinterpret_cast<const char *>(values.data()),
            values.size() * sizeof(Real));
  if (!out)
    fail("cannot write " + path);
}
/// energy.npy, forces.npy and virial.npy in `dir`, made if missing.
template <typename Real>
void writeOutputs(const std::string &dir, const std::vector<Real> &energy,
                  const std::vector<Real> &forces,
                  const std::vector<Real> &virial) {
  std::error_code made;
  std::filesystem::create_directories(dir, made);
  if (made)
    fail(dir + ": " + made.message());
  writeNpy(dir + "/energy.npy", energy, "()");
  writeNpy(dir + "/forces.npy", forces,
           "(" + std::to_string(forces.size() / 3) + ", 3)");
  writeNpy(dir + "/virial.npy", virial, "(3, 3)");
}

/// The engine's steps through the float or the double entry: coordinates,
/// types and the edge list on the GPU; energy, forces and virial back.
template <typename Real>
void runSteps(sezm_model *model, const std::string &entry, const Atoms &atoms,
              int ntypes, const std::vector<int64_t> &edgeIndex,
              const std::vector<double> &edgeVecIn, int steps,
              const std::string &outputDir) {
  constexpr bool kDouble = sizeof(Real) == 8;
  sezm_dtype real = kDouble ? SEZM_F64 : SEZM_F32;
  const char *api = kDouble ? "sezm_model_compute_edges_gpu_f64"
                            : "sezm_model_compute_edges_gpu";
  int64_t n = atoms.positions.size(), e = edgeIndex.size() / 2;
  std::vector<Real> coord, edgeVec(edgeVecIn.begin(), edgeVecIn.end());
  for (const auto &p : atoms.positions)
    coord.insert(coord.end(), p.begin(), p.end());
  sezm_tensor coordDev = onDevice(real, {n, 3}, coord.data());
  sezm_tensor atypeDev = onDevice(SEZM_I32, {n}, atoms.types.data());
  sezm_tensor indexDev = onDevice(SEZM_I64, {2, e}, edgeIndex.data());
  sezm_tensor vecDev = onDevice(real, {e, 3}, edgeVec.data());
  std::vector<Real> energy(1), forces(n * 3), virial(9);
  sezm_tensor energyDev = onDevice(real, {1}, energy.data());
  sezm_tensor forcesDev = onDevice(real, {n, 3}, forces.data());
  sezm_tensor virialDev = onDevice(real, {3, 3}, virial.data());

  std::vector<double> times;
  for (int step = 0; step < steps; ++step) {
    auto start = std::chrono::steady_clock::now();
    int failed;
    if constexpr (kDouble)
      failed = sezm_model_compute_edges_gpu_f64(
          model, entry.c_str(), n, e, ntypes,
          static_cast<const double *>(coordDev.data),
          static_cast<const int32_t *>(atypeDev.data),
          static_cast<const int64_t *>(indexDev.data),
          static_cast<const double *>(vecDev.data),
          static_cast<double *>(energyDev.data),
          static_cast<double *>(forcesDev.data),
          static_cast<double *>(virialDev.data));
    else
      failed = sezm_model_compute_edges_gpu(
          model, entry.c_str(), n, e, ntypes,
          static_cast<const float *>(coordDev.data),
          static_cast<const int32_t *>(atypeDev.data),
          static_cast<const int64_t *>(indexDev.data),
          static_cast<const float *>(vecDev.data),
          static_cast<float *>(energyDev.data),
          static_cast<float *>(forcesDev.data),
          static_cast<float *>(virialDev.data));
    if (failed)
      fail(sezm_last_error());
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  if (sezm_tensor_to_host(&energyDev, energy.data()) ||
      sezm_tensor_to_host(&forcesDev, forces.data()) ||
      sezm_tensor_to_host(&virialDev, virial.data()))
    fail(sezm_last_error());
  std::sort(times.begin(), times.end());
  std::printf("energy %.*f\n", kDouble ? 10 : 6,
              static_cast<double>(energy[0]));
  std::printf("virial %.4f %.4f %.4f / %.4f %.4f %.4f / %.4f %.4f %.4f\n",
              static_cast<double>(virial[0]), static_cast<double>(virial[1]),
              static_cast<double>(virial[2]), static_cast<double>(virial[3]),
              static_cast<double>(virial[4]), static_cast<double>(virial[5]),
              static_cast<double>(virial[6]), static_cast<double>(virial[7]),
              static_cast<double>(virial[8]));
  std::printf("%d steps through %s: median %.3f ms (graph arrays, run and "
              "copies; device memory peak %zu bytes)\n",
              steps, api, times[times.size() / 2], sezm_device_bytes_peak());
  if (!outputDir.empty())
    writeOutputs(outputDir, energy, forces, virial);
  for (sezm_tensor *t : {&coordDev, &atypeDev, &indexDev, &vecDev, &energyDev,
                         &forcesDev, &virialDev})
    sezm_tensor_free(t);
}
/// The engine's steps through the host entry, on the device the model runs
/// on (the CPU here): double arrays in host memory.
void runHostSteps(sezm_model *model, const std::string &entry,
                  const Atoms &atoms, int ntypes,
                  const std::vector<int64_t> &edgeIndex,
                  const std::vector<double> &edgeVec, int steps,
                  const std::string &outputDir) {
  int64_t n = atoms.positions.size(), e = edgeIndex.size() / 2;
  std::vector<double> coord;
  for (const auto &p : atoms.positions)
    coord.insert(coord.end(), p.begin(), p.end());
  std::vector<double> energy(1), forces(n * 3), virial(9);
  // Each atom's energy and virial too where the entry returns them
  // (sezm-compile --per-atom).
  bool perAtom = false;
  for (int i = 0; i < sezm_model_output_count(model, entry.c_str()); ++i)
    perAtom |= std::string(sezm_model_output_name(model, entry.c_str(), i)) ==
               "atom_energy";
  std::vector<double> atomEnergy(perAtom ? n : 0),
      atomVirial(perAtom ? 9 * n : 0);
  std::vector<double> times;
  for (int step = 0; step < steps; ++step) {
    auto start = std::chrono::steady_clock::now();
    if (sezm_model_compute_edges(
            model, entry.c_str(), n, e, ntypes, coord.data(),
            atoms.types.data(), edgeIndex.data(), edgeVec.data(), energy.data(),
            forces.data(), virial.data(), perAtom ? atomEnergy.data() : nullptr,
            perAtom ? atomVirial.data() : nullptr))
      fail(sezm_last_error());
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  std::sort(times.begin(), times.end());
  std::printf("energy %.10f\n", energy[0]);
  std::printf("virial %.4f %.4f %.4f / %.4f %.4f %.4f / %.4f %.4f %.4f\n",
              virial[0], virial[1], virial[2], virial[3], virial[4], virial[5],
              virial[6], virial[7], virial[8]);
  std::printf("%d steps through sezm_model_compute_edges on the %s: median "
              "%.3f ms\n",
              steps,
              sezm_model_device(model) == SEZM_DEVICE_CPU ? "CPU" : "GPU",
              times[times.size() / 2]);
  if (!outputDir.empty()) {
    writeOutputs(outputDir, energy, forces, virial);
    if (perAtom) {
      writeNpy(outputDir + "/atom_energy.npy", atomEnergy,
               "(" + std::to_string(n) + ",)");
      writeNpy(outputDir + "/atom_virial.npy", atomVirial,
               "(" + std::to_string(n) + ", 3, 3)");
    }
  }
}
} // namespace

constexpr const char *kUsage =
    "usage: sezm-md-example MODEL.sezm STRUCTURE.xyz [--species H,O] "
    "[--cutoff 6] [--entry energy_forces] [--steps 10] [--double] "
    "[--device cpu|gpu] [--output-dir DIR]";

int main(int argc, char **argv) {
  std::vector<std::string> positional;
  // The model's type_map and rcut where it states them, else these.
  std::vector<std::string> species;
  double cutoff = 0;
  std::string entry = "energy_forces", outputDir;
  int steps = 10;
  bool doubles = false;
  sezm_device device = SEZM_DEVICE_AUTO;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        fail(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::printf("%s\n\nRuns a compiled model the way an MD engine does: the "
                  "coordinates, types and\nedge list on the GPU, through "
                  "sezm_model_compute_edges_gpu, and prints the\nenergy, the "
                  "largest force, the virial and the median time of a step. "
                  "--double\npasses doubles through "
                  "sezm_model_compute_edges_gpu_f64 (a model in float64, or\n"
                  "an imported DPA4 in DeePMD-kit's split). Where the model "
                  "runs on the CPU\n(no GPU, or --device cpu), through the "
                  "host entry sezm_model_compute_edges\nin double. "
                  "--output-dir writes energy.npy, forces.npy and virial.npy "
                  "there\n(made if missing).\n",
                  kUsage);
      return 0;
    }
    if (arg == "--species") {
      species.clear();
      std::istringstream list(value());
      for (std::string name; std::getline(list, name, ',');)
        species.push_back(name);
    } else if (arg == "--cutoff") {
      cutoff = std::atof(value().c_str());
    } else if (arg == "--entry") {
      entry = value();
    } else if (arg == "--steps") {
      steps = std::max(1, std::atoi(value().c_str()));
    } else if (arg == "--double") {
      doubles = true;
    } else if (arg == "--device") {
      std::string name = value();
      if (name != "cpu" && name != "gpu")
        fail("--device " + name + ": expected cpu or gpu");
      device = name == "cpu" ? SEZM_DEVICE_CPU : SEZM_DEVICE_GPU;
    } else if (arg == "--output-dir") {
      outputDir = value();
    } else if (arg.rfind("--", 0) == 0) {
      fail("unknown option " + arg);
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() != 2)
    fail(kUsage);

  sezm_model *model = sezm_model_open_on(positional[0].c_str(), device);
  if (!model)
    fail(sezm_last_error());
  std::vector<std::string> typeMap;
  for (int t = 0; t < sezm_model_type_count(model); ++t)
    typeMap.push_back(sezm_model_type_name(model, t));
  if (!typeMap.empty() && !species.empty() && species != typeMap)
    fail("--species differs from the model's type_map");
  if (species.empty())
    species = typeMap.empty() ? std::vector<std::string>{"H", "O"} : typeMap;
  double rcut = sezm_model_rcut(model);
  if (rcut > 0 && cutoff > 0 && std::abs(cutoff - rcut) > 1e-12 * rcut)
    fail("--cutoff differs from the model's rcut");
  if (cutoff <= 0)
    cutoff = rcut > 0 ? rcut : 6.0;

  Atoms atoms = readXyz(positional[1], species);
  std::vector<int64_t> edgeIndex;
  std::vector<double> edgeVec;
  int64_t e = neighbours(atoms, cutoff, edgeIndex, edgeVec);
  int64_t n = atoms.positions.size();
  std::printf("%s: %lld atoms, %lld edges within %g A\n", positional[1].c_str(),
              static_cast<long long>(n), static_cast<long long>(e), cutoff);
  std::fflush(stdout);
  int ntypes = static_cast<int>(species.size());
  if (sezm_model_device(model) == SEZM_DEVICE_CPU)
    runHostSteps(model, entry, atoms, ntypes, edgeIndex, edgeVec, steps,
                 outputDir);
  else if (doubles)
    runSteps<double>(model, entry, atoms, ntypes, edgeIndex, edgeVec, steps,
                     outputDir);
  else
    runSteps<float>(model, entry, atoms, ntypes, edgeIndex, edgeVec, steps,
                    outputDir);
  sezm_model_close(model);
  return 0;
}

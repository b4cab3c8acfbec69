//===- ExecutionTest.cpp - compiled sezm ops against the fp64 reference ---===//
//
// Compiles modules of sezm ops with the CPU pipeline and runs them through
// the same CpuProgram that sezm-run uses:
//  - every forward op (f32) against the fp64 reference of test/Reference,
//    over a sweep of lmax 1..6, channel widths 32..128, focus 1 and 2,
//    rank 0..2, graphs with isolated atoms, empty segments and no edges;
//  - every gradient op (f64) against central finite differences of its
//    compiled forward op, along random directions;
//  - the fused ops against their unfused compositions, bit for bit;
//  - two runs of the same inputs, bit for bit.
//
//===----------------------------------------------------------------------===//

#include "Reference/Reference.h"

#include "SeZM/Dialect/SeZM/SO2Layout.h"
#include "SeZM/Execution/CpuRunner.h"
#include "SeZM/Execution/ModuleFile.h"
#include "SeZM/Support/Npy.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

using namespace mlir;
using sezmrt::ElementType;
using sezmrt::HostTensor;
namespace ref = ::sezm::reference;

namespace {

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

class Rng {
public:
  explicit Rng(uint64_t seed) : gen(seed) {}
  double uniform(double lo = -1, double hi = 1) {
    return std::uniform_real_distribution<double>(lo, hi)(gen);
  }
  int64_t below(int64_t n) {
    return std::uniform_int_distribution<int64_t>(0, n - 1)(gen);
  }

private:
  std::mt19937_64 gen;
};

ref::Array randomArray(Rng &rng, std::vector<int64_t> shape, double lo = -1,
                       double hi = 1) {
  ref::Array a(std::move(shape));
  for (double &v : a.data)
    v = rng.uniform(lo, hi);
  return a;
}

/// Edge vectors with lengths in [0.5, 7): some beyond the 6 A cutoff.
ref::Array randomEdgeVectors(Rng &rng, int64_t edges) {
  ref::Array v({edges, 3});
  for (int64_t e = 0; e < edges; ++e) {
    double x = rng.uniform(), y = rng.uniform(), z = rng.uniform();
    double scale = rng.uniform(0.5, 7) / std::sqrt(x * x + y * y + z * z);
    v({e, 0}) = x * scale;
    v({e, 1}) = y * scale;
    v({e, 2}) = z * scale;
  }
  return v;
}

HostTensor toHost(const ref::Array &a, ElementType type) {
  HostTensor t(type, a.shape);
  for (int64_t i = 0; i < a.size(); ++i) {
    if (type == ElementType::F32)
      t.data<float>()[i] = static_cast<float>(a.data[i]);
    else
      t.data<double>()[i] = a.data[i];
  }
  return t;
}

/// The values a compiled f32 op sees, widened back to fp64 for the
/// reference.
ref::Array fromHost(const HostTensor &t) {
  ref::Array a(t.shape);
  for (int64_t i = 0; i < t.numElements(); ++i)
    a.data[i] = t.at(i);
  return a;
}

HostTensor indexTensor(const std::vector<int64_t> &values) {
  HostTensor t(ElementType::I64, {static_cast<int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.data<int64_t>());
  return t;
}

/// A directed graph on `nodes` atoms whose edges touch only the first
/// `used` of them: the rest are isolated and their segments empty.
struct Graph {
  int64_t nodes;
  std::vector<int64_t> src, dst;
  ref::Csr bySrc, byDst;
};

Graph randomGraph(Rng &rng, int64_t nodes, int64_t edges, int64_t used) {
  Graph g{nodes, {}, {}, {}, {}};
  for (int64_t e = 0; e < edges; ++e) {
    g.src.push_back(rng.below(used));
    g.dst.push_back(rng.below(used));
  }
  g.bySrc = ref::Csr::build(g.src, nodes);
  g.byDst = ref::Csr::build(g.dst, nodes);
  return g;
}

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

std::string tensorType(const std::vector<int64_t> &shape,
                       const std::string &element) {
  std::string text = "tensor<";
  for (int64_t extent : shape)
    text += (extent < 0 ? "?" : std::to_string(extent)) + "x";
  return text + element + ">";
}

/// One entry function holding one op on its arguments %a0, %a1, ...
struct Entry {
  std::string name;
  std::vector<std::string> argTypes;
  std::string op;
  std::vector<std::string> resultTypes;
  /// When set, the whole function body (ops and return) instead of `op`.
  std::string body = "";
};

std::string joined(const std::vector<std::string> &items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i)
    text += (i ? ", " : "") + items[i];
  return text;
}

std::string renderModule(const std::vector<Entry> &entries) {
  std::ostringstream os;
  for (const Entry &entry : entries) {
    os << "func.func @" << entry.name << "(";
    for (size_t i = 0; i < entry.argTypes.size(); ++i)
      os << (i ? ", " : "") << "%a" << i << ": " << entry.argTypes[i];
    os << ") -> (" << joined(entry.resultTypes) << ") {\n";
    if (!entry.body.empty()) {
      os << entry.body << "\n}\n";
      continue;
    }
    size_t results = entry.resultTypes.size();
    os << "  %r" << (results > 1 ? ":" + std::to_string(results) : "") << " = "
       << entry.op << " : (" << joined(entry.argTypes) << ") -> ("
       << joined(entry.resultTypes) << ")\n  return ";
    for (size_t i = 0; i < results; ++i)
      os << (i ? ", " : "") << "%r"
         << (results > 1 ? "#" + std::to_string(i) : "");
    os << " : " << joined(entry.resultTypes) << "\n}\n";
  }
  return os.str();
}

//===----------------------------------------------------------------------===//
// Cases for the GPU
//===----------------------------------------------------------------------===//

/// With SEZM_GPU_CASES=<dir>, every test writes its module and, for the
/// first run of each entry, the inputs and the CPU's outputs, so that the
/// same suite can run on a GPU (test/GPU/run-cases.sh) and be compared with
/// the CPU.
class CaseWriter {
public:
  static CaseWriter &get() {
    static CaseWriter writer;
    return writer;
  }
  bool enabled() const { return !root.empty(); }

  void module(const std::string &text) {
    if (!enabled())
      return;
    std::string dir = testDir();
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/module.mlir") << text;
  }

  void run(const mlir::sezm::CpuProgram &program, const std::string &entry,
           const std::vector<HostTensor> &inputs,
           const std::vector<HostTensor> &outputs) {
    if (!enabled())
      return;
    std::string dir = testDir() + "/" + entry;
    if (std::filesystem::exists(dir))
      return;
    std::filesystem::create_directories(dir + "/expected");
    const sezmrt::EntrySignature *signature = program.signature(entry);
    std::ofstream command(dir + "/inputs.txt");
    std::string error;
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string name = signature->arguments[i].name;
      sezmrt::writeNpy(dir + "/" + name + ".npy", inputs[i], error);
      command << name << "\n";
    }
    for (size_t i = 0; i < outputs.size(); ++i)
      sezmrt::writeNpy(dir + "/expected/" + signature->results[i].name + ".npy",
                       outputs[i], error);
  }

private:
  CaseWriter() {
    if (const char *dir = std::getenv("SEZM_GPU_CASES"))
      root = dir;
  }
  std::string testDir() const {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name =
        std::string(info->test_suite_name()) + "." + info->name();
    for (char &c : name)
      if (c == '/')
        c = '_';
    return root + "/" + name;
  }
  std::string root;
};

class Compiler {
public:
  Compiler() {
    DialectRegistry registry;
    mlir::sezm::registerToolDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  std::unique_ptr<mlir::sezm::CpuProgram>
  compile(const std::vector<Entry> &entries) {
    std::string text = renderModule(entries);
    CaseWriter::get().module(text);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    if (!module) {
      ADD_FAILURE() << "the test module does not parse:\n" << text;
      return nullptr;
    }
    auto program = mlir::sezm::CpuProgram::compile(std::move(module));
    if (!program) {
      ADD_FAILURE() << llvm::toString(program.takeError());
      return nullptr;
    }
    return std::move(*program);
  }

private:
  MLIRContext context;
};

std::vector<HostTensor> run(const mlir::sezm::CpuProgram &program,
                            const std::string &entry,
                            const std::vector<HostTensor> &inputs) {
  auto outputs = program.run(entry, inputs);
  if (!outputs) {
    ADD_FAILURE() << entry << ": " << llvm::toString(outputs.takeError());
    return {};
  }
  CaseWriter::get().run(program, entry, inputs, *outputs);
  return std::move(*outputs);
}

/// max |actual - expected| <= tolerance * max(1, max |expected|).
void expectClose(const HostTensor &actual, const ref::Array &expected,
                 double tolerance, const std::string &what) {
  ASSERT_EQ(actual.shape, expected.shape) << what;
  double scale = 1, worst = 0;
  int64_t worstAt = -1;
  for (double v : expected.data)
    scale = std::max(scale, std::abs(v));
  for (int64_t i = 0; i < expected.size(); ++i) {
    double diff = std::abs(actual.at(i) - expected.data[i]);
    if (!(diff <= worst)) {
      worst = diff;
      worstAt = i;
    }
  }
  EXPECT_LE(worst, tolerance * scale)
      << what << ": element " << worstAt << " is "
      << (worstAt >= 0 ? actual.at(worstAt) : 0) << ", the reference "
      << (worstAt >= 0 ? expected.data[worstAt] : 0) << " (scale " << scale
      << ")";
}

void expectIdentical(const HostTensor &a, const HostTensor &b,
                     const std::string &what) {
  EXPECT_EQ(a.shape, b.shape) << what;
  EXPECT_TRUE(a.bytes == b.bytes) << what << ": results differ in some bit";
}

//===----------------------------------------------------------------------===//
// The configurations of the sweep
//===----------------------------------------------------------------------===//

struct Config {
  int lmax, channels, focus, rank;
  int64_t nodes, edges, used;
  uint64_t seed;

  int packed() const { return (lmax + 1) * (lmax + 1); }
  int reduced() const { return 3 * lmax + 1; }
  int ksz() const { return (lmax + 1) * (lmax + 1) + lmax * lmax; }
  int width() const { return channels / focus; }
  int heads() const { return width() % 2 == 0 ? 2 : 1; }
  /// The points of a grid product's grid: more than its coefficients.
  int gridPoints() const { return 2 * packed() + 3; }
  std::string label() const {
    std::ostringstream os;
    os << "lmax " << lmax << ", C " << channels << ", F " << focus << ", rank "
       << rank << ", N " << nodes << ", E " << edges;
    return os.str();
  }
};

/// How gtest shows a configuration.
void PrintTo(const Config &c, std::ostream *os) { *os << c.label(); }

/// The types of the operands of one configuration, in one element type.
struct Types {
  const Config &c;
  std::string f;
  std::string t(std::vector<int64_t> shape) const {
    return tensorType(shape, f);
  }
  std::string index() const { return tensorType({-1}, "i64"); }
  std::string x() const { return t({-1, c.packed(), c.channels}); }
  std::string wigner() const { return t({-1, c.packed(), c.packed()}); }
  std::string edgeFrame() const { return t({-1, c.reduced(), c.channels}); }
  std::string kernel() const {
    return c.rank == 0 ? t({-1, c.lmax + 1, c.channels})
                       : t({-1, c.ksz() * c.rank});
  }
  std::string basis() const { return t({c.rank, c.channels}); }
  std::string vec() const { return t({-1, 3}); }
  std::string mixSuffix() const {
    return " lmax = " + std::to_string(c.lmax) +
           " rank = " + std::to_string(c.rank);
  }
  std::string lmax() const { return " lmax = " + std::to_string(c.lmax); }
  std::string focus() const {
    return " lmax = " + std::to_string(c.lmax) +
           " focus = " + std::to_string(c.focus);
  }
  std::string w0() const {
    int64_t m0 = (c.lmax + 1) * c.width();
    return t({c.focus, m0, m0});
  }
  std::string w1() const {
    int64_t m1 = c.lmax * c.width();
    return t({c.focus, m1, m1});
  }
  std::string gw() const { return t({c.focus, c.width(), c.lmax * c.width()}); }
  std::string logit() const { return t({-1, c.focus, c.heads()}); }
};

/// Random inputs of one configuration.
struct Inputs {
  Graph graph;
  ref::Array positions, shift, edgeVec, x, wigner, xl, kc, cb, w0, wu, wv, gw,
      wfc, normScale, alpha, env, positiveEnv, invSqrtDeg, logit, nullLogit,
      packedRows, degreeWeight;

  Inputs(const Config &c, Rng &rng)
      : graph(randomGraph(rng, c.nodes, c.edges, c.used)) {
    int64_t n = c.nodes, e = c.edges, m0 = (c.lmax + 1) * c.width(),
            m1 = c.lmax * c.width();
    positions = randomArray(rng, {n, 3}, -4, 4);
    shift = randomArray(rng, {e, 3}, -1, 1);
    edgeVec = randomEdgeVectors(rng, e);
    x = randomArray(rng, {n, c.packed(), c.channels});
    wigner = randomArray(rng, {e, c.packed(), c.packed()});
    xl = randomArray(rng, {e, c.reduced(), c.channels});
    kc = c.rank == 0 ? randomArray(rng, {e, c.lmax + 1, c.channels})
                     : randomArray(rng, {e, c.ksz() * c.rank});
    cb = randomArray(rng, {std::max(c.rank, 1), c.channels});
    w0 = randomArray(rng, {c.focus, m0, m0}, -0.2, 0.2);
    wu = randomArray(rng, {c.focus, m1, m1}, -0.2, 0.2);
    wv = randomArray(rng, {c.focus, m1, m1}, -0.2, 0.2);
    gw = randomArray(rng, {c.focus, c.width(), c.lmax * c.width()}, -0.3, 0.3);
    wfc = randomArray(rng, {c.width(), c.focus}, -0.5, 0.5);
    normScale = randomArray(rng, {c.focus, c.width()}, 0.5, 1.5);
    alpha = randomArray(rng, {e, c.focus}, 0, 1);
    env = randomArray(rng, {e}, 0, 1);
    // Masked edges carry an envelope of exactly zero.
    for (int64_t i = 0; i < e; i += 7)
      env.data[i] = 0;
    positiveEnv = randomArray(rng, {e}, 0.1, 1);
    invSqrtDeg = randomArray(rng, {n}, 0.2, 1);
    logit = randomArray(rng, {e, c.focus, c.heads()}, -2, 2);
    nullLogit = randomArray(rng, {c.focus, c.heads()}, -1, 1);
    packedRows = randomArray(rng, {e, c.packed(), c.channels});
    // C -> C + 8 channels, so that a swapped weight axis cannot pass.
    degreeWeight =
        randomArray(rng, {c.lmax + 1, c.channels, c.channels + 8}, -0.3, 0.3);
  }
};

//===----------------------------------------------------------------------===//
// Forward ops against the reference
//===----------------------------------------------------------------------===//

std::vector<Config> forwardSweep() {
  return {
      {1, 32, 1, 0, 20, 90, 17, 1},  {2, 32, 2, 1, 24, 120, 20, 2},
      {3, 64, 2, 1, 30, 160, 25, 3}, {4, 64, 1, 2, 16, 70, 14, 4},
      {5, 96, 2, 1, 12, 40, 10, 5},  {6, 128, 2, 2, 10, 30, 8, 6},
      {3, 32, 2, 0, 8, 0, 0, 7},     {2, 48, 2, 2, 9, 25, 3, 8},
  };
}

class ForwardOps : public ::testing::TestWithParam<Config> {};

TEST_P(ForwardOps, MatchTheReference) {
  const Config &c = GetParam();
  SCOPED_TRACE(c.label());
  Rng rng(c.seed);
  Inputs in(c, rng);
  Types t{c, "f32"};
  const ElementType F = ElementType::F32;
  std::string basisArg = c.rank > 0 ? " basis %a4" : "";
  std::string basisArg3 = c.rank > 0 ? " basis %a2" : "";

  std::vector<Entry> entries = {
      {"edge_vectors",
       {t.vec(), t.index(), t.index(), t.vec()},
       "sezm.edge_vectors %a0[%a1, %a2] shift %a3",
       {t.vec()}},
      {"envelope",
       {t.vec()},
       "sezm.envelope %a0 rcut = 6.0 exponent = 5",
       {t.t({-1})}},
      {"radial_basis",
       {t.vec()},
       "sezm.radial_basis %a0 rcut = 6.0 exponent = 7",
       {t.t({-1, 16})}},
      {"wigner", {t.vec()}, "sezm.wigner %a0" + t.lmax(), {t.wigner()}},
      {"rotate",
       {t.x(), t.index(), t.wigner()},
       "sezm.rotate %a0[%a1] by %a2" + t.lmax(),
       {t.edgeFrame()}},
      {"rotate_back",
       {t.edgeFrame(), t.wigner()},
       "sezm.rotate_back %a0 by %a1" + t.lmax(),
       {t.x()}},
      {"segment_reduce",
       {t.x(), t.index(), t.index()},
       "sezm.segment_reduce %a0 over(%a1, %a2)",
       {t.x()}},
      {"so2_linear",
       {t.edgeFrame(), t.w0(), t.w1(), t.w1()},
       "sezm.so2_linear %a0 weights(%a1, %a2, %a3)" + t.focus(),
       {t.edgeFrame()}},
      {"gate",
       {t.edgeFrame(), t.gw()},
       "sezm.gate %a0 weight %a1" + t.focus(),
       {t.edgeFrame()}},
      {"focus_compete",
       {t.edgeFrame(), t.t({c.width(), c.focus})},
       "sezm.focus_compete %a0 weight %a1" + t.focus(),
       {t.t({-1, c.focus})}},
      {"focus_compete_norm",
       {t.edgeFrame(), t.t({c.width(), c.focus}), t.t({c.focus, c.width()})},
       "sezm.focus_compete %a0 weight %a1 norm %a2" + t.focus(),
       {t.t({-1, c.focus})}},
      {"focus_scale",
       {t.edgeFrame(), t.t({-1, c.focus})},
       "sezm.focus_scale %a0 by %a1",
       {t.edgeFrame()}},
      {"degree_linear",
       {t.x(), t.t({c.lmax + 1, c.channels, c.channels + 8})},
       "sezm.degree_linear %a0 weight %a1" + t.lmax(),
       {t.t({-1, c.packed(), c.channels + 8})}},
      {"degree_linear_transposed",
       {t.t({-1, c.packed(), c.channels + 8}),
        t.t({c.lmax + 1, c.channels, c.channels + 8})},
       "sezm.degree_linear %a0 weight %a1" + t.lmax() + " transposed",
       {t.x()}},
      {"grid_product",
       {t.x(), t.x(), t.t({c.packed(), c.gridPoints()}),
        t.t({c.gridPoints(), c.packed()})},
       "sezm.grid_product %a0, %a1 grid(%a2, %a3)",
       {t.x()}},
      {"envelope_aggregate",
       {t.edgeFrame(), t.wigner(), t.t({-1}), t.t({-1}), t.index(), t.index()},
       "sezm.envelope_aggregate %a0 by %a1 env %a2 norm %a3 over(%a4, %a5)" +
           t.lmax(),
       {t.x()}},
      {"attention_aggregate",
       {t.edgeFrame(), t.wigner(), t.logit(), t.t({-1}),
        t.t({c.focus, c.heads()}), t.index(), t.index()},
       "sezm.attention_aggregate %a0 by %a1 logit %a2 env %a3 null %a4 "
       "over(%a5, %a6)" +
           t.lmax(),
       {t.x()}},
  };
  std::vector<std::string> mixArgs = {t.edgeFrame(), t.kernel()};
  std::vector<std::string> rotateMixArgs = {t.x(), t.index(), t.wigner(),
                                            t.kernel()};
  if (c.rank > 0) {
    mixArgs.push_back(t.basis());
    rotateMixArgs.push_back(t.basis());
  }
  entries.push_back({"mix",
                     mixArgs,
                     "sezm.mix %a0 kernel %a1" + basisArg3 + t.mixSuffix(),
                     {t.edgeFrame()}});
  entries.push_back(
      {"rotate_mix",
       rotateMixArgs,
       "sezm.rotate_mix %a0[%a1] by %a2 kernel %a3" + basisArg + t.mixSuffix(),
       {t.edgeFrame()}});
  entries.push_back({"rotate_mix_focus_major",
                     rotateMixArgs,
                     "sezm.rotate_mix %a0[%a1] by %a2 kernel %a3" + basisArg +
                         t.mixSuffix() +
                         " focus_major = " + std::to_string(c.focus),
                     {t.t({c.focus, -1, c.reduced() * c.channels / c.focus})}});

  Compiler compiler;
  auto program = compiler.compile(entries);
  ASSERT_TRUE(program);

  // The reference sees exactly the f32 values the compiled code sees.
  auto f32 = [&](const ref::Array &a) { return toHost(a, F); };
  auto seen = [&](const ref::Array &a) { return fromHost(f32(a)); };
  const double tol = 2e-5;
  const Graph &g = in.graph;
  HostTensor src = indexTensor(g.src), dst = indexTensor(g.dst);

  ref::Array shift = seen(in.shift);
  expectClose(run(*program, "edge_vectors",
                  {f32(in.positions), src, dst, f32(in.shift)})[0],
              ref::edgeVectors(seen(in.positions), g.src, g.dst, &shift), tol,
              "edge_vectors");
  expectClose(run(*program, "envelope", {f32(in.edgeVec)})[0],
              ref::envelope(seen(in.edgeVec), 6.0, 5), tol, "envelope");
  expectClose(run(*program, "radial_basis", {f32(in.edgeVec)})[0],
              ref::radialBasis(seen(in.edgeVec), 6.0, 7, 16), tol,
              "radial_basis");
  expectClose(run(*program, "wigner", {f32(in.edgeVec)})[0],
              ref::wigner(seen(in.edgeVec), c.lmax), 1e-5, "wigner");
  expectClose(run(*program, "rotate", {f32(in.x), src, f32(in.wigner)})[0],
              ref::rotate(seen(in.x), g.src, seen(in.wigner), c.lmax), tol,
              "rotate");
  ref::Array cb = seen(in.cb);
  std::vector<HostTensor> mixIn = {f32(in.xl), f32(in.kc)};
  std::vector<HostTensor> rotateMixIn = {f32(in.x), src, f32(in.wigner),
                                         f32(in.kc)};
  if (c.rank > 0) {
    mixIn.push_back(f32(in.cb));
    rotateMixIn.push_back(f32(in.cb));
  }
  expectClose(run(*program, "mix", mixIn)[0],
              ref::mix(seen(in.xl), seen(in.kc), &cb, c.lmax, c.rank), tol,
              "mix");
  ref::Array rotatedMixed =
      ref::mix(ref::rotate(seen(in.x), g.src, seen(in.wigner), c.lmax),
               seen(in.kc), &cb, c.lmax, c.rank);
  expectClose(run(*program, "rotate_mix", rotateMixIn)[0], rotatedMixed, tol,
              "rotate_mix");
  expectClose(run(*program, "rotate_mix_focus_major", rotateMixIn)[0],
              ref::focusMajor(rotatedMixed, c.focus), tol,
              "rotate_mix focus-major");
  expectClose(run(*program, "rotate_back", {f32(in.xl), f32(in.wigner)})[0],
              ref::rotateBack(seen(in.xl), seen(in.wigner), c.lmax), tol,
              "rotate_back");
  HostTensor valuesByEdge = f32(in.packedRows);
  valuesByEdge.shape[0] = c.edges;
  expectClose(run(*program, "segment_reduce",
                  {valuesByEdge, indexTensor(g.bySrc.order),
                   indexTensor(g.bySrc.rowptr)})[0],
              ref::segmentReduce(seen(in.packedRows), g.bySrc), tol,
              "segment_reduce");
  expectClose(run(*program, "so2_linear",
                  {f32(in.xl), f32(in.w0), f32(in.wu), f32(in.wv)})[0],
              ref::so2Linear(seen(in.xl), seen(in.w0), seen(in.wu), seen(in.wv),
                             c.lmax, c.focus),
              tol, "so2_linear");
  expectClose(run(*program, "gate", {f32(in.xl), f32(in.gw)})[0],
              ref::gate(seen(in.xl), seen(in.gw), c.lmax, c.focus), tol,
              "gate");
  expectClose(run(*program, "focus_compete", {f32(in.xl), f32(in.wfc)})[0],
              ref::focusCompete(seen(in.xl), seen(in.wfc), nullptr, c.focus),
              tol, "focus_compete");
  ref::Array normScale = seen(in.normScale);
  expectClose(run(*program, "focus_compete_norm",
                  {f32(in.xl), f32(in.wfc), f32(in.normScale)})[0],
              ref::focusCompete(seen(in.xl), seen(in.wfc), &normScale, c.focus),
              tol, "focus_compete with norm");
  expectClose(run(*program, "focus_scale", {f32(in.xl), f32(in.alpha)})[0],
              ref::focusScale(seen(in.xl), seen(in.alpha)), tol, "focus_scale");
  ref::Array xw = ref::degreeLinear(seen(in.x), seen(in.degreeWeight), false);
  expectClose(
      run(*program, "degree_linear", {f32(in.x), f32(in.degreeWeight)})[0], xw,
      tol, "degree_linear");
  expectClose(run(*program, "degree_linear_transposed",
                  {f32(xw), f32(in.degreeWeight)})[0],
              ref::degreeLinear(seen(xw), seen(in.degreeWeight), true), tol,
              "degree_linear transposed");
  ref::Array otherX = randomArray(rng, {c.nodes, c.packed(), c.channels});
  ref::Array toGrid = randomArray(rng, {c.packed(), c.gridPoints()});
  ref::Array fromGrid = randomArray(rng, {c.gridPoints(), c.packed()});
  expectClose(
      run(*program, "grid_product",
          {f32(in.x), f32(otherX), f32(toGrid), f32(fromGrid)})[0],
      ref::gridProduct(seen(in.x), seen(otherX), seen(toGrid), seen(fromGrid)),
      tol, "grid_product");
  expectClose(run(*program, "envelope_aggregate",
                  {f32(in.xl), f32(in.wigner), f32(in.env), f32(in.invSqrtDeg),
                   indexTensor(g.byDst.order), indexTensor(g.byDst.rowptr)})[0],
              ref::envelopeAggregate(seen(in.xl), seen(in.wigner), seen(in.env),
                                     seen(in.invSqrtDeg), g.byDst, c.lmax),
              tol, "envelope_aggregate");
  expectClose(run(*program, "attention_aggregate",
                  {f32(in.xl), f32(in.wigner), f32(in.logit), f32(in.env),
                   f32(in.nullLogit), indexTensor(g.byDst.order),
                   indexTensor(g.byDst.rowptr)})[0],
              ref::attentionAggregate(seen(in.xl), seen(in.wigner),
                                      seen(in.logit), seen(in.env),
                                      seen(in.nullLogit), g.byDst, c.lmax),
              tol, "attention_aggregate");
}

INSTANTIATE_TEST_SUITE_P(Sweep, ForwardOps, ::testing::ValuesIn(forwardSweep()),
                         [](const ::testing::TestParamInfo<Config> &info) {
                           const Config &c = info.param;
                           return "lmax" + std::to_string(c.lmax) + "_C" +
                                  std::to_string(c.channels) + "_F" +
                                  std::to_string(c.focus) + "_R" +
                                  std::to_string(c.rank) + "_E" +
                                  std::to_string(c.edges);
                         });

//===----------------------------------------------------------------------===//
// Gradient ops against central finite differences of their forward ops
//===----------------------------------------------------------------------===//

ref::Array randomLike(Rng &rng, const HostTensor &t) {
  return randomArray(rng, t.shape);
}

double dot(const HostTensor &a, const ref::Array &b) {
  double sum = 0;
  for (int64_t i = 0; i < b.size(); ++i)
    sum += a.at(i) * b.data[i];
  return sum;
}

/// One gradient op checked against its forward op: each target compares the
/// gradient result `result` with d<G, forward> / d input `input` along a
/// random direction. A target with `gatherBy` holds per-edge gradients of
/// the rows input[gatherBy[e]].
struct GradientCheck {
  std::string forward, backward;
  std::vector<HostTensor> inputs;
  struct Target {
    int input, result;
    const std::vector<int64_t> *gatherBy = nullptr;
  };
  std::vector<Target> targets;
  /// The backward op's inputs given the cotangent G; by default G followed
  /// by the forward inputs.
  std::function<std::vector<HostTensor>(const HostTensor &)> backwardInputs =
      nullptr;
};

void checkGradient(const mlir::sezm::CpuProgram &program, GradientCheck check,
                   Rng &rng) {
  SCOPED_TRACE(check.backward);
  std::vector<HostTensor> y = run(program, check.forward, check.inputs);
  ASSERT_EQ(y.size(), 1u);
  ref::Array cotangent = randomLike(rng, y[0]);
  HostTensor g = toHost(cotangent, ElementType::F64);
  std::vector<HostTensor> backwardIn;
  if (check.backwardInputs) {
    backwardIn = check.backwardInputs(g);
  } else {
    backwardIn.push_back(g);
    backwardIn.insert(backwardIn.end(), check.inputs.begin(),
                      check.inputs.end());
  }
  std::vector<HostTensor> grads = run(program, check.backward, backwardIn);
  ASSERT_FALSE(grads.empty());

  const double h = 1e-5;
  for (const GradientCheck::Target &target : check.targets) {
    const HostTensor &input = check.inputs[target.input];
    ref::Array direction = randomLike(rng, input);
    auto shifted = [&](double step) {
      std::vector<HostTensor> moved = check.inputs;
      for (int64_t i = 0; i < direction.size(); ++i)
        moved[target.input].data<double>()[i] += step * direction.data[i];
      return dot(run(program, check.forward, moved)[0], cotangent);
    };
    double numeric = (shifted(h) - shifted(-h)) / (2 * h);
    const HostTensor &grad = grads[target.result];
    double analytic = 0;
    if (target.gatherBy) {
      int64_t row = grad.numElements() / std::max<int64_t>(grad.shape[0], 1);
      for (int64_t e = 0; e < grad.shape[0]; ++e)
        for (int64_t p = 0; p < row; ++p)
          analytic += grad.at(e * row + p) *
                      direction.data[(*target.gatherBy)[e] * row + p];
    } else {
      analytic = dot(grad, direction);
    }
    EXPECT_NEAR(analytic, numeric,
                1e-6 * std::max(std::abs(analytic), std::abs(numeric)) + 1e-8)
        << "input " << target.input << " against result " << target.result;
  }
}

std::vector<Config> gradientSweep() {
  return {
      {1, 16, 1, 0, 10, 40, 8, 21}, {2, 32, 2, 1, 12, 40, 10, 22},
      {3, 32, 2, 2, 10, 36, 9, 23}, {4, 16, 2, 1, 8, 20, 7, 24},
      {3, 64, 2, 1, 8, 24, 6, 25},
  };
}

class GradientOps : public ::testing::TestWithParam<Config> {};

TEST_P(GradientOps, MatchFiniteDifferences) {
  const Config &c = GetParam();
  SCOPED_TRACE(c.label());
  Rng rng(c.seed);
  Inputs in(c, rng);
  Types t{c, "f64"};
  const Graph &g = in.graph;
  auto f64 = [](const ref::Array &a) { return toHost(a, ElementType::F64); };
  HostTensor src = indexTensor(g.src), dst = indexTensor(g.dst);
  HostTensor srcOrder = indexTensor(g.bySrc.order),
             srcRowptr = indexTensor(g.bySrc.rowptr);
  HostTensor dstOrder = indexTensor(g.byDst.order),
             dstRowptr = indexTensor(g.byDst.rowptr);

  std::string kernelArgs = c.rank > 0 ? " basis %a3" : "";
  std::vector<std::string> mixIn = {t.edgeFrame(), t.kernel()};
  std::vector<std::string> mixOut = {t.edgeFrame(), t.kernel()};
  std::vector<std::string> rotateMixIn = {t.x(), t.index(), t.wigner(),
                                          t.kernel()};
  std::vector<std::string> rotateMixOut = {t.x(), t.wigner(), t.kernel()};
  if (c.rank > 0) {
    mixIn.push_back(t.basis());
    mixOut.push_back(t.basis());
    rotateMixIn.push_back(t.basis());
    rotateMixOut.push_back(t.basis());
  }
  auto withGrad = [](std::string first, std::vector<std::string> rest) {
    rest.insert(rest.begin(), std::move(first));
    return rest;
  };
  std::vector<std::string> f = {t.t({c.width(), c.focus})};
  std::vector<std::string> aggregateIn = {t.edgeFrame(), t.wigner(), t.t({-1}),
                                          t.t({-1}),     t.index(),  t.index()};
  std::vector<std::string> attentionIn = {t.edgeFrame(),
                                          t.wigner(),
                                          t.logit(),
                                          t.t({-1}),
                                          t.t({c.focus, c.heads()}),
                                          t.index(),
                                          t.index()};
  std::vector<Entry> entries = {
      {"edge_vectors",
       {t.vec(), t.index(), t.index()},
       "sezm.edge_vectors %a0[%a1, %a2]",
       {t.vec()}},
      {"edge_vectors_grad",
       {t.vec(), t.index(), t.index(), t.index(), t.index()},
       "sezm.edge_vectors_grad %a0 src(%a1, %a2) dst(%a3, %a4)",
       {t.vec()}},
      {"envelope",
       {t.vec()},
       "sezm.envelope %a0 rcut = 6.0 exponent = 5",
       {t.t({-1})}},
      {"envelope_grad",
       {t.t({-1}), t.vec()},
       "sezm.envelope_grad %a0, %a1 rcut = 6.0 exponent = 5",
       {t.vec()}},
      {"radial_basis",
       {t.vec()},
       "sezm.radial_basis %a0 rcut = 6.0 exponent = 7",
       {t.t({-1, 8})}},
      {"radial_basis_grad",
       {t.t({-1, 8}), t.vec()},
       "sezm.radial_basis_grad %a0, %a1 rcut = 6.0 exponent = 7",
       {t.vec()}},
      {"radial_basis_freqs",
       {t.vec(), t.t({8})},
       "sezm.radial_basis %a0 freqs %a1 rcut = 6.0 exponent = 7",
       {t.t({-1, 8})}},
      {"radial_basis_freqs_grad",
       {t.t({-1, 8}), t.vec(), t.t({8})},
       "sezm.radial_basis_grad %a0, %a1 freqs %a2 rcut = 6.0 exponent = 7",
       {t.vec()}},
      {"glu",
       {t.t({-1, c.packed(), 2 * c.channels}),
        t.t({c.channels, c.lmax * c.channels})},
       "sezm.glu %a0 weight %a1" + t.lmax(),
       {t.t({-1, c.packed(), c.channels})}},
      {"glu_grad",
       {t.t({-1, c.packed(), c.channels}),
        t.t({-1, c.packed(), 2 * c.channels}),
        t.t({c.channels, c.lmax * c.channels})},
       "sezm.glu_grad %a0, %a1 weight %a2" + t.lmax(),
       {t.t({-1, c.packed(), 2 * c.channels})}},
      {"rms_norm",
       {t.t({-1, c.channels}), t.t({c.channels})},
       "sezm.rms_norm %a0 scale %a1 eps = 1.0e-7",
       {t.t({-1, c.channels})}},
      {"rms_norm_grad",
       {t.t({-1, c.channels}), t.t({-1, c.channels}), t.t({c.channels})},
       "sezm.rms_norm_grad %a0, %a1 scale %a2 eps = 1.0e-7",
       {t.t({-1, c.channels})}},
      {"equivariant_rms_norm",
       {t.x(), t.t({c.lmax + 1, c.channels}), t.t({c.channels})},
       "sezm.equivariant_rms_norm %a0 scale %a1 bias %a2" + t.lmax() +
           " eps = 1.0e-5",
       {t.x()}},
      {"equivariant_rms_norm_grad",
       {t.x(), t.x(), t.t({c.lmax + 1, c.channels})},
       "sezm.equivariant_rms_norm_grad %a0, %a1 scale %a2" + t.lmax() +
           " eps = 1.0e-5",
       {t.x()}},
      {"grid_product",
       {t.x(), t.x(), t.t({c.packed(), c.gridPoints()}),
        t.t({c.gridPoints(), c.packed()})},
       "sezm.grid_product %a0, %a1 grid(%a2, %a3)",
       {t.x()}},
      {"grid_product_grad",
       {t.x(), t.x(), t.x(), t.t({c.packed(), c.gridPoints()}),
        t.t({c.gridPoints(), c.packed()})},
       "sezm.grid_product_grad %a0, %a1, %a2 grid(%a3, %a4)",
       {t.x(), t.x()}},
      {"glu_scalar",
       {t.t({-1, 1, 2 * c.channels})},
       "sezm.glu %a0 lmax = 0",
       {t.t({-1, 1, c.channels})}},
      {"glu_scalar_grad",
       {t.t({-1, 1, c.channels}), t.t({-1, 1, 2 * c.channels})},
       "sezm.glu_grad %a0, %a1 lmax = 0",
       {t.t({-1, 1, 2 * c.channels})}},
      {"wigner", {t.vec()}, "sezm.wigner %a0" + t.lmax(), {t.wigner()}},
      {"wigner_grad",
       {t.wigner(), t.vec()},
       "sezm.wigner_grad %a0, %a1" + t.lmax(),
       {t.vec()}},
      {"rotate",
       {t.x(), t.index(), t.wigner()},
       "sezm.rotate %a0[%a1] by %a2" + t.lmax(),
       {t.edgeFrame()}},
      {"rotate_grad",
       {t.edgeFrame(), t.x(), t.index(), t.wigner()},
       "sezm.rotate_grad %a0, %a1[%a2] by %a3" + t.lmax(),
       {t.x(), t.wigner()}},
      {"mix",
       mixIn,
       "sezm.mix %a0 kernel %a1" + std::string(c.rank > 0 ? " basis %a2" : "") +
           t.mixSuffix(),
       {t.edgeFrame()}},
      {"mix_grad", withGrad(t.edgeFrame(), mixIn),
       "sezm.mix_grad %a0, %a1 kernel %a2" + kernelArgs + t.mixSuffix(),
       mixOut},
      {"rotate_mix",
       rotateMixIn,
       "sezm.rotate_mix %a0[%a1] by %a2 kernel %a3" +
           std::string(c.rank > 0 ? " basis %a4" : "") + t.mixSuffix(),
       {t.edgeFrame()}},
      {"rotate_mix_grad", withGrad(t.edgeFrame(), rotateMixIn),
       "sezm.rotate_mix_grad %a0, %a1[%a2] by %a3 kernel %a4" +
           std::string(c.rank > 0 ? " basis %a5" : "") + t.mixSuffix(),
       rotateMixOut},
      {"rotate_back",
       {t.edgeFrame(), t.wigner()},
       "sezm.rotate_back %a0 by %a1" + t.lmax(),
       {t.x()}},
      {"rotate_back_grad",
       {t.x(), t.edgeFrame(), t.wigner()},
       "sezm.rotate_back_grad %a0, %a1 by %a2" + t.lmax(),
       {t.edgeFrame(), t.wigner()}},
      {"segment_reduce",
       {t.x(), t.index(), t.index()},
       "sezm.segment_reduce %a0 over(%a1, %a2)",
       {t.x()}},
      {"segment_reduce_grad",
       {t.x(), t.index(), t.index()},
       "sezm.segment_reduce_grad %a0 over(%a1, %a2)",
       {t.x()}},
      {"so2_linear",
       {t.edgeFrame(), t.w0(), t.w1(), t.w1()},
       "sezm.so2_linear %a0 weights(%a1, %a2, %a3)" + t.focus(),
       {t.edgeFrame()}},
      {"so2_linear_grad",
       {t.edgeFrame(), t.edgeFrame(), t.w0(), t.w1(), t.w1()},
       "sezm.so2_linear_grad %a0, %a1 weights(%a2, %a3, %a4)" + t.focus(),
       {t.edgeFrame(), t.w0(), t.w1(), t.w1()}},
      {"gate",
       {t.edgeFrame(), t.gw()},
       "sezm.gate %a0 weight %a1" + t.focus(),
       {t.edgeFrame()}},
      {"gate_grad",
       {t.edgeFrame(), t.edgeFrame(), t.gw()},
       "sezm.gate_grad %a0, %a1 weight %a2" + t.focus(),
       {t.edgeFrame(), t.gw()}},
      {"focus_compete",
       {t.edgeFrame(), f[0], t.t({c.focus, c.width()})},
       "sezm.focus_compete %a0 weight %a1 norm %a2" + t.focus(),
       {t.t({-1, c.focus})}},
      {"focus_compete_grad",
       {t.t({-1, c.focus}), t.edgeFrame(), f[0], t.t({c.focus, c.width()})},
       "sezm.focus_compete_grad %a0, %a1 weight %a2 norm %a3" + t.focus(),
       {t.edgeFrame(), f[0], t.t({c.focus, c.width()})}},
      {"focus_scale",
       {t.edgeFrame(), t.t({-1, c.focus})},
       "sezm.focus_scale %a0 by %a1",
       {t.edgeFrame()}},
      {"focus_scale_grad",
       {t.edgeFrame(), t.edgeFrame(), t.t({-1, c.focus})},
       "sezm.focus_scale_grad %a0, %a1 by %a2",
       {t.edgeFrame(), t.t({-1, c.focus})}},
      {"degree_linear",
       {t.x(), t.t({c.lmax + 1, c.channels, c.channels + 8})},
       "sezm.degree_linear %a0 weight %a1" + t.lmax(),
       {t.t({-1, c.packed(), c.channels + 8})}},
      {"degree_linear_weight_grad",
       {t.t({-1, c.packed(), c.channels + 8}), t.x()},
       "sezm.degree_linear_weight_grad %a0, %a1" + t.lmax(),
       {t.t({c.lmax + 1, c.channels, c.channels + 8})}},
      {"degree_linear_transposed",
       {t.x(), t.t({c.lmax + 1, c.channels + 8, c.channels})},
       "sezm.degree_linear %a0 weight %a1" + t.lmax() + " transposed",
       {t.t({-1, c.packed(), c.channels + 8})}},
      {"degree_linear_transposed_weight_grad",
       {t.t({-1, c.packed(), c.channels + 8}), t.x()},
       "sezm.degree_linear_weight_grad %a0, %a1" + t.lmax() + " transposed",
       {t.t({c.lmax + 1, c.channels + 8, c.channels})}},
      {"envelope_aggregate",
       aggregateIn,
       "sezm.envelope_aggregate %a0 by %a1 env %a2 norm %a3 over(%a4, %a5)" +
           t.lmax(),
       {t.x()}},
      {"envelope_aggregate_grad",
       {t.x(), t.edgeFrame(), t.wigner(), t.t({-1}), t.t({-1}), t.index()},
       "sezm.envelope_aggregate_grad %a0, %a1 by %a2 env %a3 norm %a4 at %a5" +
           t.lmax(),
       {t.edgeFrame(), t.wigner(), t.t({-1}), t.t({-1})}},
      {"attention_aggregate",
       attentionIn,
       "sezm.attention_aggregate %a0 by %a1 logit %a2 env %a3 null %a4 "
       "over(%a5, %a6)" +
           t.lmax(),
       {t.x()}},
      {"attention_aggregate_grad",
       withGrad(t.x(), attentionIn),
       "sezm.attention_aggregate_grad %a0, %a1 by %a2 logit %a3 env %a4 "
       "null %a5 over(%a6, %a7)" +
           t.lmax(),
       {t.edgeFrame(), t.wigner(), t.logit(), t.t({-1}),
        t.t({c.focus, c.heads()})}},
  };
  Compiler compiler;
  auto program = compiler.compile(entries);
  ASSERT_TRUE(program);

  using T = GradientCheck::Target;
  checkGradient(*program,
                {"edge_vectors",
                 "edge_vectors_grad",
                 {f64(in.positions), src, dst},
                 {T{0, 0}},
                 [&](const HostTensor &grad) {
                   return std::vector<HostTensor>{grad, srcOrder, srcRowptr,
                                                  dstOrder, dstRowptr};
                 }},
                rng);
  for (std::string op : {"envelope", "radial_basis", "wigner"})
    checkGradient(*program, {op, op + "_grad", {f64(in.edgeVec)}, {T{0, 0}}},
                  rng);
  // Trained frequencies: around the initial (k+1) pi / rcut, not equal.
  ref::Array freqs = randomArray(rng, {8}, 0.3, 4.5);
  checkGradient(*program,
                {"radial_basis_freqs",
                 "radial_basis_freqs_grad",
                 {f64(in.edgeVec), f64(freqs)},
                 {T{0, 0}}},
                rng);
  // A GLU's gate logits span the sigmoid's bend.
  int64_t nodes = c.nodes;
  HostTensor gluX = f64(randomArray(rng, {nodes, c.packed(), 2 * c.channels}));
  HostTensor gluW =
      f64(randomArray(rng, {c.channels, c.lmax * c.channels}, -0.4, 0.4));
  checkGradient(*program, {"glu", "glu_grad", {gluX, gluW}, {T{0, 0}}}, rng);
  // The norm's weights as trained ones are: scales near 1, small biases.
  HostTensor normX = f64(in.x);
  HostTensor normScale =
      f64(randomArray(rng, {c.lmax + 1, c.channels}, 0.5, 1.5));
  checkGradient(*program,
                {"equivariant_rms_norm",
                 "equivariant_rms_norm_grad",
                 {normX, normScale, f64(randomArray(rng, {c.channels}))},
                 {T{0, 0}},
                 [&](const HostTensor &grad) {
                   return std::vector<HostTensor>{grad, normX, normScale};
                 }},
                rng);
  HostTensor rowX = f64(randomArray(rng, {c.edges, c.channels}));
  HostTensor rowScale = f64(randomArray(rng, {c.channels}, 0.5, 1.5));
  checkGradient(*program,
                {"rms_norm",
                 "rms_norm_grad",
                 {rowX, rowScale},
                 {T{0, 0}},
                 [&](const HostTensor &grad) {
                   return std::vector<HostTensor>{grad, rowX, rowScale};
                 }},
                rng);
  // Both fields' gradients, through a grid with more points than
  // coefficients.
  checkGradient(*program,
                {"grid_product",
                 "grid_product_grad",
                 {f64(randomArray(rng, {nodes, c.packed(), c.channels})),
                  f64(randomArray(rng, {nodes, c.packed(), c.channels})),
                  f64(randomArray(rng, {c.packed(), c.gridPoints()})),
                  f64(randomArray(rng, {c.gridPoints(), c.packed()}))},
                 {T{0, 0}, T{1, 1}}},
                rng);
  HostTensor scalarX = f64(randomArray(rng, {nodes, 1, 2 * c.channels}, -3, 3));
  checkGradient(*program,
                {"glu_scalar", "glu_scalar_grad", {scalarX}, {T{0, 0}}}, rng);
  checkGradient(*program,
                {"rotate",
                 "rotate_grad",
                 {f64(in.x), src, f64(in.wigner)},
                 {T{0, 0, &g.src}, T{2, 1}}},
                rng);
  std::vector<HostTensor> mixInputs = {f64(in.xl), f64(in.kc)};
  std::vector<HostTensor> rotateMixInputs = {f64(in.x), src, f64(in.wigner),
                                             f64(in.kc)};
  std::vector<T> mixTargets = {T{0, 0}, T{1, 1}};
  std::vector<T> rotateMixTargets = {T{0, 0, &g.src}, T{2, 1}, T{3, 2}};
  if (c.rank > 0) {
    mixInputs.push_back(f64(in.cb));
    rotateMixInputs.push_back(f64(in.cb));
    mixTargets.push_back(T{2, 2});
    rotateMixTargets.push_back(T{4, 3});
  }
  checkGradient(*program, {"mix", "mix_grad", mixInputs, mixTargets}, rng);
  checkGradient(
      *program,
      {"rotate_mix", "rotate_mix_grad", rotateMixInputs, rotateMixTargets},
      rng);
  checkGradient(*program,
                {"rotate_back",
                 "rotate_back_grad",
                 {f64(in.xl), f64(in.wigner)},
                 {T{0, 0}, T{1, 1}}},
                rng);
  HostTensor packedRows = f64(in.packedRows);
  checkGradient(*program,
                {"segment_reduce",
                 "segment_reduce_grad",
                 {packedRows, srcOrder, srcRowptr},
                 {T{0, 0}},
                 [&](const HostTensor &grad) {
                   return std::vector<HostTensor>{grad, srcOrder, srcRowptr};
                 }},
                rng);
  checkGradient(*program,
                {"so2_linear",
                 "so2_linear_grad",
                 {f64(in.xl), f64(in.w0), f64(in.wu), f64(in.wv)},
                 {T{0, 0}, T{1, 1}, T{2, 2}, T{3, 3}}},
                rng);
  checkGradient(
      *program,
      {"gate", "gate_grad", {f64(in.xl), f64(in.gw)}, {T{0, 0}, T{1, 1}}}, rng);
  checkGradient(*program,
                {"focus_compete",
                 "focus_compete_grad",
                 {f64(in.xl), f64(in.wfc), f64(in.normScale)},
                 {T{0, 0}, T{1, 1}, T{2, 2}}},
                rng);
  checkGradient(*program,
                {"focus_scale",
                 "focus_scale_grad",
                 {f64(in.xl), f64(in.alpha)},
                 {T{0, 0}, T{1, 1}}},
                rng);
  // The weight gradient of degree_linear, in both weight layouts.
  for (bool transposed : {false, true}) {
    std::string op = transposed ? "degree_linear_transposed" : "degree_linear";
    ref::Array w =
        transposed ? randomArray(rng, {c.lmax + 1, c.channels + 8, c.channels})
                   : in.degreeWeight;
    HostTensor x = f64(in.x);
    checkGradient(*program,
                  {op,
                   op + "_weight_grad",
                   {x, f64(w)},
                   {T{1, 0}},
                   [&](const HostTensor &grad) {
                     return std::vector<HostTensor>{grad, x};
                   }},
                  rng);
  }
  // The envelope stays positive here: the attention takes its logarithm.
  std::vector<HostTensor> aggregateInputs = {
      f64(in.xl),         f64(in.wigner), f64(in.positiveEnv),
      f64(in.invSqrtDeg), dstOrder,       dstRowptr};
  checkGradient(*program,
                {"envelope_aggregate",
                 "envelope_aggregate_grad",
                 aggregateInputs,
                 // The norm's gradient comes as per-edge terms of each
                 // edge's destination.
                 {T{0, 0}, T{1, 1}, T{2, 2}, T{3, 3, &g.dst}},
                 [&](const HostTensor &grad) {
                   return std::vector<HostTensor>{grad,
                                                  aggregateInputs[0],
                                                  aggregateInputs[1],
                                                  aggregateInputs[2],
                                                  aggregateInputs[3],
                                                  dst};
                 }},
                rng);
  checkGradient(*program,
                {"attention_aggregate",
                 "attention_aggregate_grad",
                 {f64(in.xl), f64(in.wigner), f64(in.logit),
                  f64(in.positiveEnv), f64(in.nullLogit), dstOrder, dstRowptr},
                 {T{0, 0}, T{1, 1}, T{2, 2}, T{3, 3}, T{4, 4}}},
                rng);
}

INSTANTIATE_TEST_SUITE_P(Sweep, GradientOps,
                         ::testing::ValuesIn(gradientSweep()),
                         [](const ::testing::TestParamInfo<Config> &info) {
                           const Config &c = info.param;
                           return "lmax" + std::to_string(c.lmax) + "_C" +
                                  std::to_string(c.channels) + "_F" +
                                  std::to_string(c.focus) + "_R" +
                                  std::to_string(c.rank);
                         });

//===----------------------------------------------------------------------===//
// Fused ops against their unfused compositions; repeatability
//===----------------------------------------------------------------------===//

class FusedOps : public ::testing::TestWithParam<Config> {};

/// The argument types of a rotate_mix, (x, src, wigner, kc[, cb]), and
/// with `backward` of its backward fused with the source reduction, (grad,
/// ..., src_order, src_rowptr); `wigner` the Wigner-D's type.
std::vector<std::string> rotateMixArgTypes(const Config &c, const Types &t,
                                           const std::string &wigner,
                                           bool backward) {
  std::vector<std::string> types = {t.x(), t.index(), wigner, t.kernel()};
  if (c.rank > 0)
    types.push_back(t.basis());
  if (backward) {
    types.insert(types.begin(), t.edgeFrame());
    types.push_back(t.index());
    types.push_back(t.index());
  }
  return types;
}

/// The arguments of the same, from `in`, with the Wigner-D `wigner`.
std::vector<HostTensor> rotateMixArgs(const Config &c, const Inputs &in,
                                      const HostTensor &wigner, bool backward) {
  auto f32 = [](const ref::Array &a) { return toHost(a, ElementType::F32); };
  std::vector<HostTensor> args = {f32(in.x), indexTensor(in.graph.src), wigner,
                                  f32(in.kc)};
  if (c.rank > 0)
    args.push_back(f32(in.cb));
  if (backward) {
    args.insert(args.begin(), f32(in.xl));
    args.push_back(indexTensor(in.graph.bySrc.order));
    args.push_back(indexTensor(in.graph.bySrc.rowptr));
  }
  return args;
}

TEST_P(FusedOps, EqualTheirUnfusedCompositionBitForBit) {
  const Config &c = GetParam();
  SCOPED_TRACE(c.label());
  Rng rng(c.seed);
  Inputs in(c, rng);
  Types t{c, "f32"};
  auto f32 = [](const ref::Array &a) { return toHost(a, ElementType::F32); };
  std::string basis = c.rank > 0 ? " basis %a4" : "";
  std::string gradBasis = c.rank > 0 ? " basis %a5" : "";
  std::vector<std::string> forwardIn =
      rotateMixArgTypes(c, t, t.wigner(), false);
  std::vector<std::string> backwardIn =
      rotateMixArgTypes(c, t, t.wigner(), true);
  std::string order = c.rank > 0 ? "%a6, %a7" : "%a5, %a6";
  std::string mixTypes = "(" + t.edgeFrame() + ", " + t.kernel() +
                         (c.rank > 0 ? ", " + t.basis() : "") + ")";
  std::vector<std::string> gradOut = {t.x(), t.wigner(), t.kernel()};

  std::vector<Entry> entries = {
      {"unfused_forward",
       forwardIn,
       "",
       {t.edgeFrame()},
       "  %xl = sezm.rotate %a0[%a1] by %a2" + t.lmax() + " : (" + t.x() +
           ", " + t.index() + ", " + t.wigner() + ") -> " + t.edgeFrame() +
           "\n  %y = sezm.mix %xl kernel %a3" +
           std::string(c.rank > 0 ? " basis %a4" : "") + t.mixSuffix() + " : " +
           mixTypes + " -> " + t.edgeFrame() +
           "\n  return %y : " + t.edgeFrame()},
      {"fused_forward",
       forwardIn,
       "sezm.rotate_mix %a0[%a1] by %a2 kernel %a3" + basis + t.mixSuffix(),
       {t.edgeFrame()}},
      {"unfused_backward", backwardIn, "", gradOut,
       "  %n:3 = sezm.rotate_mix_grad %a0, %a1[%a2] by %a3 kernel %a4" +
           gradBasis + t.mixSuffix() + " : (" +
           joined(std::vector<std::string>(backwardIn.begin(),
                                           backwardIn.end() - 2)) +
           ") -> (" + t.x() + ", " + t.wigner() + ", " + t.kernel() + ")\n" +
           "  %gx = sezm.segment_reduce %n#0 over(" + order + ") : (" + t.x() +
           ", " + t.index() + ", " + t.index() + ") -> " + t.x() +
           "\n  return %gx, %n#1, %n#2 : " + joined(gradOut)},
      {"fused_backward", backwardIn,
       "sezm.rotate_mix_grad_reduce %a0, %a1[%a2] by %a3 kernel %a4" +
           gradBasis + " over(" + order + ")" + t.mixSuffix(),
       gradOut},
  };
  Compiler compiler;
  auto program = compiler.compile(entries);
  ASSERT_TRUE(program);

  std::vector<HostTensor> forward = rotateMixArgs(c, in, f32(in.wigner), false);
  std::vector<HostTensor> backward = rotateMixArgs(c, in, f32(in.wigner), true);

  expectIdentical(run(*program, "fused_forward", forward)[0],
                  run(*program, "unfused_forward", forward)[0],
                  "rotate_mix against mix(rotate)");
  std::vector<HostTensor> fused = run(*program, "fused_backward", backward);
  std::vector<HostTensor> unfused = run(*program, "unfused_backward", backward);
  ASSERT_EQ(fused.size(), 3u);
  ASSERT_EQ(unfused.size(), 3u);
  const char *names[] = {"x_grad", "wigner_grad", "kc_grad"};
  for (int i = 0; i < 3; ++i)
    expectIdentical(fused[i], unfused[i],
                    std::string("rotate_mix_grad_reduce ") + names[i] +
                        " against segment_reduce(rotate_mix_grad)");
  // Equal and zero would prove nothing.
  double norm = 0;
  for (int64_t i = 0; i < fused[0].numElements(); ++i)
    norm += std::abs(fused[0].at(i));
  if (c.edges > 0)
    EXPECT_GT(norm, 0);

  // Two runs of the same inputs give the same bits.
  std::vector<HostTensor> again = run(*program, "fused_backward", backward);
  for (int i = 0; i < 3; ++i)
    expectIdentical(fused[i], again[i], std::string("second run ") + names[i]);
}

/// A Wigner-D stored as the entries a rotation keeps, (E, K), gives the
/// same numbers as the whole matrix, and its gradient is the whole one's
/// kept entries: the same sums in the same order, so the same bits.
TEST_P(FusedOps, KeptWignerEntriesEqualTheWholeMatrix) {
  const Config &c = GetParam();
  SCOPED_TRACE(c.label());
  Rng rng(c.seed);
  Inputs in(c, rng);
  Types t{c, "f32"};
  mlir::sezm::SO2Layout layout{c.lmax};
  int64_t keptCount = layout.keptWignerEntries();
  std::string kept = t.t({-1, keptCount});
  std::string basis = c.rank > 0 ? " basis %a4" : "";
  std::string gradBasis = c.rank > 0 ? " basis %a5" : "";
  std::string order = c.rank > 0 ? "%a6, %a7" : "%a5, %a6";
  auto inputsWith = [&](const std::string &wigner) {
    return rotateMixArgTypes(c, t, wigner, false);
  };
  auto backwardWith = [&](const std::string &wigner) {
    return rotateMixArgTypes(c, t, wigner, true);
  };
  std::string forwardOp =
      "sezm.rotate_mix %a0[%a1] by %a2 kernel %a3" + basis + t.mixSuffix();
  std::string backwardOp =
      "sezm.rotate_mix_grad_reduce %a0, %a1[%a2] by %a3 kernel %a4" +
      gradBasis + " over(" + order + ")" + t.mixSuffix();
  // The per-edge backward (loop kernels on the CPU) and the rotation alone.
  auto perEdgeBody = [&](const std::string &wigner) {
    std::vector<std::string> in = backwardWith(wigner);
    return "  %n:3 = sezm.rotate_mix_grad %a0, %a1[%a2] by %a3 kernel %a4" +
           gradBasis + t.mixSuffix() + " : (" +
           joined(std::vector<std::string>(in.begin(), in.end() - 2)) +
           ") -> (" + t.x() + ", " + wigner + ", " + t.kernel() + ")\n" +
           "  %r = sezm.rotate %a1[%a2] by %a3" + t.lmax() + " : (" + t.x() +
           ", " + t.index() + ", " + wigner + ") -> " + t.edgeFrame() +
           "\n  return %n#0, %n#1, %n#2, %r : " + t.x() + ", " + wigner + ", " +
           t.kernel() + ", " + t.edgeFrame();
  };
  std::vector<Entry> entries = {
      {"whole_forward", inputsWith(t.wigner()), forwardOp, {t.edgeFrame()}},
      {"kept_forward", inputsWith(kept), forwardOp, {t.edgeFrame()}},
      {"whole_backward",
       backwardWith(t.wigner()),
       backwardOp,
       {t.x(), t.wigner(), t.kernel()}},
      {"kept_backward",
       backwardWith(kept),
       backwardOp,
       {t.x(), kept, t.kernel()}},
      {"whole_per_edge",
       backwardWith(t.wigner()),
       "",
       {t.x(), t.wigner(), t.kernel(), t.edgeFrame()},
       perEdgeBody(t.wigner())},
      {"kept_per_edge",
       backwardWith(kept),
       "",
       {t.x(), kept, t.kernel(), t.edgeFrame()},
       perEdgeBody(kept)},
  };
  Compiler compiler;
  auto program = compiler.compile(entries);
  ASSERT_TRUE(program);

  // The kept entries of the whole matrix, in the order of reduced row j,
  // then column d of its degree's block.
  HostTensor whole = toHost(in.wigner, ElementType::F32);
  int64_t edges = whole.shape[0], rows = layout.packedRows();
  std::vector<int64_t> places;
  for (int64_t j = 0; j < layout.reducedRows(); ++j) {
    int64_t l = layout.degreeOfReduced(j);
    for (int64_t d = l * l; d < (l + 1) * (l + 1); ++d)
      places.push_back(layout.packedRowOfReduced(j) * rows + d);
  }
  ASSERT_EQ(static_cast<int64_t>(places.size()), keptCount);
  auto keptOf = [&](const HostTensor &matrix) {
    HostTensor entries(ElementType::F32, {edges, keptCount});
    for (int64_t e = 0; e < edges; ++e)
      for (int64_t k = 0; k < keptCount; ++k)
        entries.data<float>()[e * keptCount + k] =
            matrix.data<float>()[e * rows * rows + places[k]];
    return entries;
  };
  HostTensor keptWigner = keptOf(whole);

  auto withWigner = [&](const HostTensor &wigner, bool backward) {
    return rotateMixArgs(c, in, wigner, backward);
  };
  expectIdentical(
      run(*program, "kept_forward", withWigner(keptWigner, false))[0],
      run(*program, "whole_forward", withWigner(whole, false))[0],
      "rotate_mix on the kept entries");
  for (const char *form : {"backward", "per_edge"}) {
    std::vector<HostTensor> fromKept = run(
        *program, std::string("kept_") + form, withWigner(keptWigner, true));
    std::vector<HostTensor> fromWhole =
        run(*program, std::string("whole_") + form, withWigner(whole, true));
    ASSERT_EQ(fromKept.size(), fromWhole.size());
    for (size_t i = 0; i < fromKept.size(); ++i) {
      std::string what = std::string(form) + " output " + std::to_string(i);
      if (i == 1)
        expectIdentical(fromKept[i], keptOf(fromWhole[i]), what);
      else
        expectIdentical(fromKept[i], fromWhole[i], what);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sweep, FusedOps,
                         ::testing::Values(Config{3, 64, 2, 1, 30, 160, 25, 31},
                                           Config{2, 32, 1, 0, 20, 90, 15, 32},
                                           Config{1, 32, 2, 1, 6, 0, 0, 33}),
                         [](const ::testing::TestParamInfo<Config> &info) {
                           const Config &c = info.param;
                           return "lmax" + std::to_string(c.lmax) + "_R" +
                                  std::to_string(c.rank) + "_E" +
                                  std::to_string(c.edges);
                         });

} // namespace

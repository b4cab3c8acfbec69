//===- DPA4Import.cpp - sezm modules from DeePMD-kit DPA4 checkpoints -----===//
//
// Three steps: read the config and refuse what sezm does not support (each
// refusal names the model_params key and its value); take every weight out
// of the state dict, checking its shape against the config, and re-lay it
// out for sezm's ops; write the module. The module text mirrors the
// hand-written SeZM-min (examples/sezm-min/model.mlir), with DeePMD-kit's
// FFNs, readout and fitting net. Every state-dict tensor is either a weight
// or one of the index maps and constants DeePMD-kit rebuilds (and sezm
// derives itself); any other key is an error.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Import/DPA4Import.h"
#include "SeZM/Support/SphereGrid.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

using namespace sezmrt;

bool sezmrt::parseImportPrecision(const std::string &text,
                                  ImportPrecision &out) {
  if (text == "model")
    out = ImportPrecision::Model;
  else if (text == "float32")
    out = ImportPrecision::Float32;
  else if (text == "float64")
    out = ImportPrecision::Float64;
  else
    return false;
  return true;
}

namespace {
using Kind = PyObject::Kind;

/// A config value as it reads in the JSON of an input file.
std::string render(const PyObject *value) {
  if (!value)
    return "(absent)";
  switch (value->kind) {
  case Kind::None:
    return "null";
  case Kind::Bool:
    return value->boolean ? "true" : "false";
  case Kind::Int:
    return std::to_string(value->integer);
  case Kind::Float: {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value->real);
    return text;
  }
  case Kind::String:
    return "\"" + value->text + "\"";
  case Kind::List:
  case Kind::Tuple: {
    std::string text = "[";
    for (size_t i = 0; i < value->items.size(); ++i)
      text += (i ? ", " : "") + render(value->items[i]);
    return text + "]";
  }
  default:
    return value->describe();
  }
}

/// Thrown (and caught at the entry) with a located, plain-English reason.
struct ImportError {
  std::string message;
};

[[noreturn]] void fail(std::string message) {
  throw ImportError{std::move(message)};
}

/// One section of model_params ("descriptor", "fitting_net" or the model
/// itself), whose keys are read by name and checked off, so that a key
/// sezm does not know is refused rather than ignored.
class Section {
public:
  Section(const PyObject *dict, std::string path)
      : dict(dict), path(std::move(path)) {
    if (!dict || dict->kind != Kind::Dict)
      fail(this->path + " is " + render(dict) + ", not a dict");
  }

  const PyObject *get(const std::string &key) {
    known.insert(key);
    return dict->get(key);
  }
  std::string where(const std::string &key) const { return path + "." + key; }

  int64_t integer(const std::string &key) {
    const PyObject *v = get(key);
    if (!v || v->kind != Kind::Int)
      fail(where(key) + " = " + render(v) + ": expected an integer");
    return v->integer;
  }
  double number(const std::string &key) {
    const PyObject *v = get(key);
    if (v && v->kind == Kind::Int)
      return static_cast<double>(v->integer);
    if (!v || v->kind != Kind::Float)
      fail(where(key) + " = " + render(v) + ": expected a number");
    return v->real;
  }
  bool flag(const std::string &key) {
    const PyObject *v = get(key);
    if (!v || v->kind != Kind::Bool)
      fail(where(key) + " = " + render(v) + ": expected true or false");
    return v->boolean;
  }
  std::string text(const std::string &key) {
    const PyObject *v = get(key);
    if (!v || v->kind != Kind::String)
      fail(where(key) + " = " + render(v) + ": expected a string");
    return v->text;
  }
  std::vector<int64_t> integers(const std::string &key) {
    const PyObject *v = get(key);
    std::vector<int64_t> out;
    if (v && (v->kind == Kind::List || v->kind == Kind::Tuple))
      for (const PyObject *item : v->items)
        if (item->kind == Kind::Int)
          out.push_back(item->integer);
    if (!v || (v->kind != Kind::List && v->kind != Kind::Tuple) ||
        out.size() != v->items.size())
      fail(where(key) + " = " + render(v) + ": expected a list of integers");
    return out;
  }

  /// Requires `key` to read `expected` (as render() writes it); `what` says
  /// what sezm lacks otherwise. An absent key passes when `absentOk`.
  void require(const std::string &key, const std::string &expected,
               const std::string &what, bool absentOk = false) {
    const PyObject *v = get(key);
    if (!v && absentOk)
      return;
    if (render(v) != expected)
      fail(where(key) + " = " + render(v) + ": sezm imports only " + expected +
           " (" + what + ")");
  }
  /// Requires `key` to be null, absent or an empty list.
  void requireNone(const std::string &key, const std::string &what) {
    const PyObject *v = get(key);
    if (!v || v->kind == Kind::None)
      return;
    if ((v->kind == Kind::List || v->kind == Kind::Tuple) && v->items.empty())
      return;
    fail(where(key) + " = " + render(v) + ": sezm does not import " + what);
  }
  /// Marks keys that change nothing at inference.
  void ignore(std::initializer_list<const char *> keys) {
    for (const char *key : keys)
      known.insert(key);
  }
  /// Refuses every key not read or ignored.
  void refuseUnknown() const {
    for (const auto &[key, value] : dict->entries)
      if (key->kind == Kind::String && !known.count(key->text))
        fail(where(key->text) + " = " + render(value) +
             ": a setting sezm does not know, so it cannot tell what it "
             "changes (deepmd-kit 3.2.0's DPA4 has no such key)");
  }

private:
  const PyObject *dict;
  std::string path;
  std::set<std::string> known;
};

/// What a grid net does on the grid (DeePMD-kit's grid_op): the product of
/// its two fields (GridProduct, "glu"); the same after a channel map of each
/// (one scalar-routed branch, GridBranch: its router's softmax over one
/// branch is 1) and before an output map; or maps of both fields' frame
/// channels side by side (GridMLP, "mlp").
enum class GridOp { Product, Branch, Mlp };

/// The sizes of an imported model.
struct Config {
  /// DeePMD-kit's sandwich norms: [pre-SO2, post-SO2, pre-FFN, post-FFN].
  std::array<bool, 4> sandwich{};
  /// edge_norm: the radial MLP's RMSNorm, the focus competition's scalar
  /// RMSNorm, and eps 1e-5 (not 1.0) after the SO(2) convolution.
  bool edgeNorm = false;
  /// DeePMD-kit's S2-grid GLU FFN (s2_activation [false, true]) in place of
  /// the packed GatedActivation.
  bool s2Ffn = false;
  /// DeePMD-kit's SO(3)-grid nets (DPA4-Mini): in each block's FFN
  /// (ffn_so3_grid, in place of the packed or S2 one), on the aggregated
  /// message with the block's node features (message_node_so3), and in the
  /// read-out (so3_readout "glu" or "mlp": the whole node tensor).
  bool ffnSO3 = false, messageSO3 = false;
  GridOp ffnOp = GridOp::Product, messageOp = GridOp::Product;
  std::string readout = "none";
  /// The SO(3) grids' largest frame order |k|.
  int64_t kmax = 0;
  /// DeePMD-kit's env seed: the FiLM of the l = 0 features and the
  /// geometric initial embedding (GIE) of the l >= 1 rows.
  bool envSeed = false;
  /// Attention heads per focus stream (0: envelope aggregation).
  int64_t heads = 0;
  /// The env seed's widths (DeePMD-kit derives them from channels): its
  /// embedding e, type embedding t, axis a, RBF projection and G hidden.
  int64_t seedEmbed() const { return std::min<int64_t>(channels, 128); }
  int64_t seedType() const {
    return std::min<int64_t>(32, std::max<int64_t>(8, channels / 4));
  }
  int64_t seedAxis() const {
    return std::min<int64_t>(seedEmbed() < 64 ? 4 : 8,
                             std::max<int64_t>(1, seedEmbed() - 1));
  }
  int64_t seedRbf() const {
    return std::max<int64_t>(32, seedEmbed() - 2 * seedType());
  }
  int64_t seedHidden() const {
    return std::min<int64_t>(
        256, std::max<int64_t>(2 * seedEmbed(), seedRbf() + 2 * seedType()));
  }
  std::vector<std::string> typeMap;
  double rcut = 0;
  int64_t channels = 0, lmax = 0, blocks = 0, layers = 0, focus = 1,
          focusDim = 0, radial = 0, rbfExponent = 0, envExponent = 0,
          radialHidden = 0, ffnHidden = 0, readoutHidden = 0, fitHidden = 0;
  std::string precision;

  int64_t wide() const { return focus * focusDim; }
  int64_t packed() const { return (lmax + 1) * (lmax + 1); }
  int64_t reduced() const { return 3 * lmax + 1; }
  /// The rank-1 degree mixer's compact kernel size (sezm-ops.md 1.7): an
  /// (L+1)^2 block for m = 0 and an L^2 one for |m| = 1.
  int64_t kernelSize() const { return (lmax + 1) * (lmax + 1) + lmax * lmax; }
};

/// The shortest text that reads back as `value`, as an MLIR float literal.
std::string floatLiteral(double value) {
  char text[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value)
      break;
  }
  std::string out = text;
  if (out.find_first_of(".e") == std::string::npos)
    out += ".0";
  return out;
}

int64_t roundUp32(double width) {
  return static_cast<int64_t>(32 * std::ceil(width / 32.0));
}

Config readConfig(const PyObject *params) {
  Config c;
  Section model(params, "model_params");
  model.require("type", "\"dpa4\"", "DPA4 energy models");
  const PyObject *typeMap = model.get("type_map");
  if (!typeMap || typeMap->kind != Kind::List || typeMap->items.empty())
    fail("model_params.type_map = " + render(typeMap) +
         ": expected a list of species names");
  for (const PyObject *name : typeMap->items) {
    if (name->kind != Kind::String)
      fail("model_params.type_map = " + render(typeMap) +
           ": expected species names");
    c.typeMap.push_back(name->text);
  }
  model.requireNone("spin", "spin models");
  model.requireNone("use_srtab", "ZBL / tabulated short-range pair terms");
  model.requireNone("pair_exclude_types", "excluded type pairs");
  model.requireNone("atom_exclude_types", "excluded atom types");
  model.requireNone("preset_out_bias", "preset output biases");
  model.requireNone("lora", "LoRA adapters");
  model.require("bridging_method", "\"None\"",
                "no ZBL bridging: sezm has no short-range repulsion yet");
  model.ignore({"descriptor", "fitting_net", "data_stat_nbatch",
                "data_stat_protect", "data_bias_nsample", "srtab_add_bias",
                "use_compile", "enable_tf32", "model_branch_alias", "info",
                "bridging_r_inner", "bridging_r_outer"});
  model.refuseUnknown();

  Section d(params->get("descriptor"), "model_params.descriptor");
  d.require("type", "\"dpa4\"", "the DPA4 (SeZM) descriptor");
  c.rcut = d.number("rcut");
  if (!(c.rcut > 0))
    fail(d.where("rcut") + " = " + render(d.get("rcut")) +
         ": the cutoff must be positive");
  c.channels = d.integer("channels");
  c.lmax = d.integer("lmax");
  if (c.lmax < 1 || c.lmax > 6)
    fail(d.where("lmax") + " = " + std::to_string(c.lmax) +
         ": sezm's kernels support lmax 1 to 6");
  d.require("mmax", "1", "the |m| <= 1 SO(2) layout of sezm's kernels");
  c.blocks = d.integer("n_blocks");
  c.layers = d.integer("mixing_layers");
  if (c.blocks < 1 || c.layers < 1)
    fail(d.where(c.blocks < 1 ? "n_blocks" : "mixing_layers") +
         " must be at least 1");
  c.focus = d.integer("n_focus");
  c.focusDim = d.integer("focus_dim");
  if (c.focusDim == 0)
    c.focusDim = c.channels;
  if (c.heads < 0 || (c.heads > 0 && c.focusDim % c.heads != 0))
    fail(d.where("n_atten_head") + " = " + std::to_string(c.heads) +
         ": expected 0, or a divisor of the focus width " +
         std::to_string(c.focusDim));
  // sezm.attention_aggregate's null mass is softplus(z) + 1e-7: DeePMD-kit's
  // eps.
  if (c.heads > 0 && d.number("eps") != 1e-7)
    fail(d.where("eps") + " = " + floatLiteral(d.number("eps")) +
         ": attention is built with DeePMD-kit's eps 1e-7 only");
  if (c.focus < 1 || c.focusDim < 1)
    fail(d.where("n_focus") + " and focus_dim must be positive");
  d.require("radial_so2_mode", "\"degree_channel\"",
            "the edge-conditioned degree-channel mixer");
  d.require("radial_so2_rank", "1", "the rank-1 degree mixer");
  c.heads = d.integer("n_atten_head");
  {
    const PyObject *seed = d.get("use_env_seed");
    if (!seed || seed->kind != Kind::Bool)
      fail(d.where("use_env_seed") + " = " + render(seed) +
           ": expected true or false");
    c.envSeed = seed->boolean;
  }
  {
    const PyObject *edgeNorm = d.get("edge_norm");
    if (!edgeNorm || edgeNorm->kind != Kind::Bool)
      fail(d.where("edge_norm") + " = " + render(edgeNorm) +
           ": expected true or false");
    c.edgeNorm = edgeNorm->boolean;
  }
  {
    const PyObject *norms = d.get("sandwich_norm");
    bool ok = norms && norms->kind == Kind::List && norms->items.size() == 4;
    for (size_t k = 0; ok && k < 4; ++k) {
      ok = norms->items[k]->kind == Kind::Bool;
      if (ok)
        c.sandwich[k] = norms->items[k]->boolean;
    }
    if (!ok)
      fail(d.where("sandwich_norm") + " = " + render(norms) +
           ": expected four booleans [pre-SO2, post-SO2, pre-FFN, post-FFN]");
  }
  {
    const PyObject *s2 = d.get("s2_activation");
    bool ok = s2 && s2->kind == Kind::List && s2->items.size() == 2 &&
              s2->items[0]->kind == Kind::Bool &&
              s2->items[1]->kind == Kind::Bool;
    if (!ok)
      fail(d.where("s2_activation") + " = " + render(s2) +
           ": expected two booleans [SO(2) convolution, FFN]");
    if (s2->items[0]->boolean)
      fail(d.where("s2_activation") + " = " + render(s2) +
           ": S2-grid activations inside the SO(2) convolution are not built "
           "(sezm imports [false, false] and [false, true])");
    // DeePMD-kit's FFN takes the SO(3) grid over the S2 one.
    c.ffnSO3 = d.flag("ffn_so3_grid");
    c.s2Ffn = s2->items[1]->boolean && !c.ffnSO3;
    // The FFN's grid: Lebedev (DeePMD-kit's default), not the product grid.
    const PyObject *lebedev = d.get("lebedev_quadrature");
    bool onLebedev =
        !lebedev || (lebedev->kind == Kind::Bool && lebedev->boolean) ||
        (lebedev->kind == Kind::List && lebedev->items.size() == 2 &&
         lebedev->items[1]->kind == Kind::Bool && lebedev->items[1]->boolean);
    if (c.s2Ffn && !onLebedev)
      fail(d.where("lebedev_quadrature") + " = " + render(lebedev) +
           ": the S2 FFN on the theta-phi product grid is not built (sezm "
           "imports the Lebedev grid, DeePMD-kit's default)");
  }
  c.readout = d.text("so3_readout");
  if (c.readout != "none" && c.readout != "glu" && c.readout != "mlp")
    fail(d.where("so3_readout") + " = \"" + c.readout +
         "\": expected \"none\", \"glu\" or \"mlp\"");
  d.require("readout_layers", "1", "one readout FFN");
  d.require("ffn_blocks", "1", "one FFN per block");
  c.messageSO3 = d.flag("message_node_so3");
  if (c.messageSO3 && c.focus != 1)
    fail(d.where("message_node_so3") + " = true with n_focus " +
         std::to_string(c.focus) +
         ": the message-node SO(3) grid net is built for one focus stream");
  c.kmax = d.integer("kmax");
  if (c.kmax < 0 || c.kmax > c.lmax)
    fail(d.where("kmax") + " = " + std::to_string(c.kmax) +
         ": expected a frame order from 0 to lmax " + std::to_string(c.lmax));
  // grid_mlp and grid_branch: one value for every grid path, or one per
  // path [node-wise, message-node, FFN].
  auto perPath = [&](const std::string &key, Kind kind) {
    const PyObject *v = d.get(key);
    std::vector<const PyObject *> items;
    if (v && v->kind == kind)
      items.assign(3, v);
    else if (v && v->kind == Kind::List && v->items.size() == 3)
      items = v->items;
    for (const PyObject *item : items)
      if (item->kind != kind)
        items.clear();
    if (items.empty())
      fail(d.where(key) + " = " + render(v) + ": expected " +
           (kind == Kind::Bool ? "true or false" : "an integer") +
           ", or three of them [node-wise, message-node, FFN]");
    return items;
  };
  std::vector<const PyObject *> mlp = perPath("grid_mlp", Kind::Bool),
                                branches = perPath("grid_branch", Kind::Int);
  auto gridOp = [&](int path, const char *what) {
    int64_t count = branches[path]->integer;
    if (count < 0 || count > 1)
      fail(d.where("grid_branch") + " = " + render(d.get("grid_branch")) +
           ": sezm builds at most one scalar-routed branch (the " + what +
           " grid path asks for " + std::to_string(count) + ")");
    return count == 1 ? GridOp::Branch
                      : (mlp[path]->boolean ? GridOp::Mlp : GridOp::Product);
  };
  c.messageOp = gridOp(1, "message-node");
  c.ffnOp = gridOp(2, "FFN");
  for (const char *key :
       {"node_wise_s2", "node_wise_so3", "message_node_s2", "so2_norm",
        "atten_f_mix", "atten_v_proj", "atten_o_proj", "mlp_bias",
        "layer_scale", "edge_cartesian", "add_chg_spin_ebd"})
    d.require(key, "false", "that option is not built");
  for (const char *key :
       {"so2_attn_res", "full_attn_res", "block_attn_res", "node_cartesian"})
    d.require(key, "\"none\"", "that option is not built");
  d.requireNone("l_schedule", "degree schedules");
  d.requireNone("m_schedule", "order schedules");
  d.requireNone("exclude_types", "excluded type pairs");
  d.requireNone("default_chg_spin", "charge / spin conditioning");
  d.require("extra_node_l", "0", "node degrees beyond lmax");
  d.require("basis_type", "\"bessel\"", "the Bessel radial basis");
  d.require("activation_function", "\"silu\"", "SiLU activations");
  d.require("glu_activation", "true", "GLU FFNs");
  c.radial = d.integer("n_radial");
  std::vector<int64_t> exponents = d.integers("env_exp");
  if (exponents.size() != 2 || exponents[0] < 1 || exponents[1] < 1)
    fail(d.where("env_exp") + " = " + render(d.get("env_exp")) +
         ": expected two positive envelope exponents [rbf, edge]");
  c.rbfExponent = exponents[0];
  c.envExponent = exponents[1];
  std::vector<int64_t> radialMlp = d.integers("radial_mlp");
  if (radialMlp.size() != 1)
    fail(d.where("radial_mlp") + " = " + render(d.get("radial_mlp")) +
         ": sezm imports a radial MLP of one hidden layer");
  c.radialHidden = radialMlp[0] ? radialMlp[0] : c.channels;
  int64_t ffn = d.integer("ffn_neurons");
  c.ffnHidden = ffn ? ffn : roundUp32(8.0 * c.channels / 3.0);
  c.readoutHidden = c.ffnHidden;
  std::string precision = d.text("precision");
  if (precision != "float32" && precision != "float64")
    fail(d.where("precision") + " = \"" + precision +
         "\": sezm imports float32 and float64 models");
  c.precision = precision;
  // Training-only settings and sizes that do not change the function.
  d.ignore({"sel", "random_gamma", "lebedev_quadrature", "use_amp", "eps",
            "trainable", "seed"});
  d.refuseUnknown();

  Section f(params->get("fitting_net"), "model_params.fitting_net");
  f.require("type", "\"dpa4_ener\"", "the DPA4 energy fitting net");
  f.require("numb_fparam", "0", "no frame parameters (fparam)");
  f.require("numb_aparam", "0", "no atomic parameters (aparam)");
  f.require("dim_case_embd", "0", "single-task models");
  f.require("activation_function", "\"silu\"", "SiLU activations");
  f.require("resnet_dt", "false", "plain GLU layers");
  f.require("case_film_embd", "false", "single-task models", true);
  f.require("use_aparam_as_mask", "false", "no aparam masks", true);
  f.requireNone("atom_ener", "fixed atomic energies");
  f.requireNone("default_fparam", "default frame parameters");
  std::vector<int64_t> neuron = f.integers("neuron");
  if (neuron.size() != 1)
    fail(f.where("neuron") + " = " + render(f.get("neuron")) +
         ": sezm imports a fitting net of one GLU layer");
  c.fitHidden = neuron[0] ? neuron[0] : roundUp32(8.0 * c.channels / 3.0);
  std::string fitPrecision = f.text("precision");
  if (fitPrecision != precision)
    fail(f.where("precision") + " = \"" + fitPrecision +
         "\": sezm imports a fitting net in the descriptor's precision (\"" +
         precision + "\")");
  f.ignore({"trainable", "rcond", "seed"});
  f.refuseUnknown();
  return c;
}

/// A dense array of doubles, C order.
struct Array {
  std::vector<int64_t> shape;
  std::vector<double> values;

  Array() = default;
  explicit Array(std::vector<int64_t> shape) : shape(std::move(shape)) {
    int64_t count = 1;
    for (int64_t d : this->shape)
      count *= d;
    values.assign(count, 0.0);
  }
};

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

/// The state dict's tensors, taken by key; those taken, and the constants
/// deepmd rebuilds, are all there may be.
class StateDict {
public:
  StateDict(const TorchCheckpoint &checkpoint, const PyObject *model)
      : checkpoint(checkpoint), model(model) {}

  /// The tensor `key` (without the atomic model's prefix) of `shape`.
  Array take(const std::string &key, const std::vector<int64_t> &shape) {
    const PyObject *tensor = model->get(kPrefix + key);
    if (!tensor)
      fail("the state dict has no tensor '" + kPrefix + key +
           "', which the config's model has");
    if (tensor->kind != Kind::Tensor)
      fail("state dict '" + kPrefix + key + "' is " + tensor->describe() +
           ", not a tensor");
    taken.insert(kPrefix + key);
    if (tensor->shape != shape)
      fail("state dict '" + kPrefix + key + "' has shape " +
           shapeText(tensor->shape) + ", but model_params make it " +
           shapeText(shape));
    HostTensor host;
    std::string error;
    if (!loadTensor(checkpoint, *tensor, host, error))
      fail("state dict '" + kPrefix + key + "': " + error);
    if (host.type != ElementType::F32 && host.type != ElementType::F64)
      fail("state dict '" + kPrefix + key + "' holds " + host.describe() +
           ", not floating-point weights");
    Array out(shape);
    for (int64_t i = 0; i < host.numElements(); ++i)
      out.values[i] = host.at(i);
    return out;
  }

  /// Refuses tensors that are neither taken nor rebuilt constants.
  void refuseExtra() const {
    for (const auto &[key, value] : model->entries) {
      if (key->kind != Kind::String || key->text == "_extra_state" ||
          taken.count(key->text) || isRebuilt(key->text))
        continue;
      fail("the state dict has a tensor '" + key->text +
           "' that the config's model does not (model_params and the "
           "weights disagree)");
    }
  }

private:
  static bool isRebuilt(const std::string &key) {
    auto endsWith = [&](const std::string &suffix) {
      return key.size() >= suffix.size() &&
             key.compare(key.size() - suffix.size(), suffix.size(), suffix) ==
                 0;
    };
    for (const char *suffix :
         {".expand_index", ".m0_idx", ".pos_indices", ".neg_indices",
          ".kernel_compact_index", ".kernel_dense_index", "descriptor.mean",
          "descriptor.stddev", "descriptor.version_tensor", "out_std",
          "dens_force_rmsd", "model.Default.min_nbor_dist",
          ".non_scalar_row_index", ".zonal_m0_col_index_for_row",
          ".radial_slot_index_for_row"})
      if (endsWith(suffix))
        return true;
    return key.find(".wigner_calc.") != std::string::npos;
  }

  static inline const std::string kPrefix = "model.Default.atomic_model.";
  const TorchCheckpoint &checkpoint;
  const PyObject *model;
  std::set<std::string> taken;
};

/// The module text, written with the names of the values it defines.
/// The extents of a tensor type, -1 for dynamic ones.
using Dims = std::initializer_list<int64_t>;

class Writer {
public:
  Writer(std::string element, std::string outer)
      : t(std::move(element)), outer(std::move(outer)) {}

  std::ostringstream os;
  /// The network's element type ("f32" or "f64").
  const std::string t;
  /// The element type of positions, edge vectors, forces, virial and the
  /// energy: "f64" in DeePMD-kit's split around an fp32 network, else t.
  const std::string outer;

  /// A tensor type of `element` (the network's by default); -1 is dynamic.
  std::string tensor(Dims dims, const std::string &element) const {
    std::string text = "tensor<";
    for (int64_t d : dims)
      text += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
    return text + element + ">";
  }
  std::string tensor(Dims dims) const { return tensor(dims, t); }

  /// %name = (rows x a) @ (a x cols), rows dynamic (`rows` an index value).
  void matmul(const std::string &name, const std::string &rows,
              const std::string &a, int64_t inner, const std::string &b,
              int64_t cols) {
    std::string out = tensor({-1, cols});
    os << "  %" << name << "E = tensor.empty(%" << rows << ") : " << out
       << "\n  %" << name << "Z = linalg.fill ins(%zero : " << t << ") outs(%"
       << name << "E : " << out << ") -> " << out << "\n  %" << name
       << " = linalg.matmul ins(%" << a << ", %" << b << " : "
       << tensor({-1, inner}) << ", " << tensor({inner, cols}) << ") outs(%"
       << name << "Z : " << out << ") -> " << out << "\n";
  }

  /// %name = sigmoid(%in) for a (rows x cols) tensor, as (1 + tanh(h/2)) / 2:
  /// finite for any h (exp(-h) would overflow).
  void sigmoid(const std::string &name, const std::string &rows,
               const std::string &in, int64_t cols) {
    std::string type = tensor({-1, cols});
    os << "  %" << name << "E = tensor.empty(%" << rows << ") : " << type
       << "\n  %" << name << "H = linalg.fill ins(%half : " << t << ") outs(%"
       << name << "E : " << type << ") -> " << type << "\n  %" << name
       << "A = arith.mulf %" << in << ", %" << name << "H : " << type << "\n  %"
       << name << "T = math.tanh %" << name << "A : " << type << "\n  %" << name
       << "B = arith.mulf %" << name << "T, %" << name << "H : " << type
       << "\n  %" << name << " = arith.addf %" << name << "B, %" << name
       << "H : " << type << "\n";
  }

  /// %name = silu(%in) = in sigmoid(in) for a (rows x cols) tensor.
  void silu(const std::string &name, const std::string &rows,
            const std::string &in, int64_t cols) {
    sigmoid(name + "S", rows, in, cols);
    os << "  %" << name << " = arith.mulf %" << in << ", %" << name
       << "S : " << tensor({-1, cols}) << "\n";
  }

  /// %name = %in (rows, a, b) with its last two axes swapped.
  void swapLastAxes(const std::string &name, const std::string &rows,
                    const std::string &in, int64_t a, int64_t b) {
    os << "  %" << name << "E = tensor.empty(%" << rows
       << ") : " << tensor({-1, b, a}) << "\n  %" << name
       << " = linalg.transpose ins(%" << in << " : " << tensor({-1, a, b})
       << ") outs(%" << name << "E : " << tensor({-1, b, a})
       << ") permutation = [0, 2, 1]\n";
  }

  /// %name (E, width) = src[types[src[e]], k % period] + dst[types[dst[e]],
  /// k % period] for per-type tables %src and %dst of `tableRows` rows (the
  /// types are not differentiated: a lookup). `period` is an index value
  /// name when the tables are narrower than `width`, else empty.
  void typePairLookup(const std::string &name, int64_t width,
                      const std::string &srcTable, const std::string &dstTable,
                      int64_t tableRows, int64_t tableWidth,
                      const std::string &period) {
    std::string table = tensor({tableRows, tableWidth});
    os << "  %" << name << "E = tensor.empty(%edges) : " << tensor({-1, width})
       << "\n  %" << name
       << " = linalg.generic {indexing_maps = [#edge, #edge, #edgeRow], "
          "iterator_types = [\"parallel\", \"parallel\"]}\n"
       << "      ins(%src, %dst : tensor<?xi64>, tensor<?xi64>) outs(%" << name
       << "E : " << tensor({-1, width}) << ") {\n"
       << "    ^bb0(%s: i64, %d: i64, %out: " << t << "):\n"
       << "      %k = linalg.index 1 : index\n";
    std::string column = "k";
    if (!period.empty()) {
      os << "      %c = arith.remui %k, %" << period << " : index\n";
      column = "c";
    }
    os << "      %si = arith.index_cast %s : i64 to index\n"
       << "      %di = arith.index_cast %d : i64 to index\n"
       << "      %ts = tensor.extract %types[%si] : tensor<?xi64>\n"
       << "      %td = tensor.extract %types[%di] : tensor<?xi64>\n"
       << "      %tsi = arith.index_cast %ts : i64 to index\n"
       << "      %tdi = arith.index_cast %td : i64 to index\n"
       << "      %a = tensor.extract %" << srcTable << "[%tsi, %" << column
       << "] : " << table << "\n"
       << "      %b = tensor.extract %" << dstTable << "[%tdi, %" << column
       << "] : " << table << "\n"
       << "      %r = arith.addf %a, %b : " << t << "\n"
       << "      linalg.yield %r : " << t << "\n"
       << "  } -> " << tensor({-1, width}) << "\n";
  }

  /// %name (rows, a, b) = %in broadcast along `axis` (1: in is (rows, b);
  /// 0: in is the constant (a, b)).
  void broadcast(const std::string &name, const std::string &rows,
                 const std::string &in, int64_t a, int64_t b, int axis) {
    std::string out = tensor({-1, a, b});
    os << "  %" << name << "E = tensor.empty(%" << rows << ") : " << out
       << "\n  %" << name << " = linalg.broadcast ins(%" << in << " : "
       << (axis == 1 ? tensor({-1, b}) : tensor({a, b})) << ") outs(%" << name
       << "E : " << out << ") dimensions = [" << axis << "]\n";
  }
};

/// The weights of the module, by argument name, in the build's type.
class Weights {
public:
  void add(const std::string &name, const Array &array, ElementType type) {
    HostTensor tensor(type, array.shape);
    for (size_t i = 0; i < array.values.size(); ++i) {
      if (type == ElementType::F32)
        tensor.data<float>()[i] = static_cast<float>(array.values[i]);
      else
        tensor.data<double>()[i] = array.values[i];
    }
    tensors.emplace(name, std::move(tensor));
  }

  std::map<std::string, HostTensor> tensors;
};

/// (a, b*c) viewed as (a, b, c), taken as (b, a, c): a focus-batched weight
/// (in, F*out) as sezm's (F, in, out), keeping columns [first, first+width)
/// of each stream's `stride` columns.
Array perFocus(const Array &w, int64_t focus, int64_t stride, int64_t first,
               int64_t width) {
  int64_t in = w.shape[0];
  Array out({focus, in, width});
  for (int64_t f = 0; f < focus; ++f)
    for (int64_t i = 0; i < in; ++i)
      for (int64_t o = 0; o < width; ++o)
        out.values[(f * in + i) * width + o] =
            w.values[i * w.shape[1] + f * stride + first + o];
  return out;
}

/// A block-diagonal matrix of `degrees` copies of `w` (in, out): a
/// per-degree (or per-frame) channel map as one product over (rows,
/// degrees*in), as the radial_hidden_proj and the grid nets' output maps.
Array blockDiagonal(const Array &w, int64_t degrees) {
  int64_t in = w.shape[0], out = w.shape[1];
  Array big({degrees * in, degrees * out});
  for (int64_t l = 0; l < degrees; ++l)
    for (int64_t i = 0; i < in; ++i)
      for (int64_t o = 0; o < out; ++o)
        big.values[(l * in + i) * (degrees * out) + l * out + o] =
            w.values[i * out + o];
  return big;
}

/// (D*C, C) selecting row 0 of flattened (N, D*C) node features.
Array rowZeroSelection(int64_t packed, int64_t channels) {
  Array s({packed * channels, channels});
  for (int64_t c = 0; c < channels; ++c)
    s.values[c * channels + c] = 1.0;
  return s;
}

/// Columns [first, first + width) of the last axis of `a`.
Array lastAxisSlice(const Array &a, int64_t first, int64_t width) {
  std::vector<int64_t> shape = a.shape;
  int64_t last = shape.back();
  shape.back() = width;
  Array out(shape);
  int64_t rows = static_cast<int64_t>(a.values.size()) / last;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < width; ++k)
      out.values[r * width + k] = a.values[r * last + first + k];
  return out;
}

/// Entries [first, first + count) of the first axis of `a`.
Array firstAxisSlice(const Array &a, int64_t first, int64_t count) {
  std::vector<int64_t> shape = a.shape;
  int64_t stride = static_cast<int64_t>(a.values.size()) / shape.front();
  shape.front() = count;
  Array out(shape);
  std::copy(a.values.begin() + first * stride,
            a.values.begin() + (first + count) * stride, out.values.begin());
  return out;
}

/// The (rows, cols) row-major matrix `m` transposed.
Array transposed(const std::vector<double> &m, int64_t rows, int64_t cols) {
  Array out({cols, rows});
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < cols; ++k)
      out.values[k * rows + r] = m[r * cols + k];
  return out;
}

/// The product a (m, k) b (k, n).
Array product(const Array &a, const Array &b) {
  int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  Array out({m, n});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j)
      for (int64_t o = 0; o < n; ++o)
        out.values[i * n + o] += a.values[i * k + j] * b.values[j * n + o];
  return out;
}

/// Drops the leading extent of (1, ...) weights.
Array squeezeFront(Array a) {
  a.shape.erase(a.shape.begin());
  return a;
}

/// Frame-packed weights (..., K Win) with each frame's block times m (Win,
/// Wout): (..., K Wout). A channel map applied per frame after a linear map,
/// folded into it.
Array foldFrames(const Array &w, const Array &m, int64_t frames) {
  int64_t in = m.shape[0], out = m.shape[1];
  int64_t rows = static_cast<int64_t>(w.values.size()) / (frames * in);
  std::vector<int64_t> shape = w.shape;
  shape.back() = frames * out;
  Array folded(shape);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t f = 0; f < frames; ++f)
      for (int64_t i = 0; i < in; ++i) {
        double x = w.values[(r * frames + f) * in + i];
        for (int64_t o = 0; o < out; ++o)
          folded.values[(r * frames + f) * out + o] +=
              x * m.values[i * out + o];
      }
  return folded;
}

/// a + b, of one shape.
Array sum(Array a, const Array &b) {
  for (size_t i = 0; i < a.values.size(); ++i)
    a.values[i] += b.values[i];
  return a;
}

/// A grid in the module: its to_grid (D K, points) and from_grid
/// (points, D K) arguments, for fields of D coefficients in K frames (the
/// S2 grid: K = 1).
struct GridNames {
  std::string to, from;
  int64_t frames = 1, points = 0;
};

/// The weights of one DeePMD-kit grid net (S2GridNet or SO3GridNet) in the
/// module, by argument name: its two fields are degree linears of the
/// inputs (`left`, `right`: (L+1, Cin, K Wg), with DeePMD-kit's frame
/// expansion and channel maps folded in), multiplied on the grid; an
/// optional frame-wise output map (`out`, block-diagonal (K Wg, K W)); the
/// scalar path from the inputs' l = 0 rows (`left0`, `right0`: (Cin, W) or
/// empty where the rows themselves are the pair) through the scalar gate
/// (`gateLeft`, `gateRight`: (W, W)).
struct GridNet {
  std::string left, right, out, left0, right0, gateLeft, gateRight;
  /// The (D Cin, Cin) row-0 selection, the (W, K W) frame tiling (K > 1)
  /// and the (D, K W) mask of row 0 in frame 0.
  std::string select, tile, mask;
  int64_t inWidth = 0, gridWidth = 0, width = 0;
};

/// %<name> (N, D, K W) = from_grid(to_grid(%a) to_grid(%b)) for frame-packed
/// fields %a, %b (N, D, K W), channel k W + c of frame k: each field viewed
/// as (N, D K, W) (coefficient d K + k) for sezm.grid_product, the product
/// viewed back.
void writeGridProduct(Writer &w, const std::string &name, const std::string &a,
                      const std::string &b, int64_t D, const GridNames &grid,
                      int64_t W) {
  const int64_t K = grid.frames, J = D * K, P = grid.points;
  std::ostringstream &os = w.os;
  auto ty = [&](Dims dims) { return w.tensor(dims); };
  std::string fields[2] = {a, b};
  if (K > 1) {
    for (auto [tag, field] : {std::pair{"a", a}, std::pair{"b", b}}) {
      std::string f = name + tag;
      os << "  %" << f << "k = tensor.expand_shape %" << field
         << " [[0], [1], [2, 3]] output_shape [%n, " << D << ", " << K << ", "
         << W << "] : " << ty({-1, D, K * W}) << " into " << ty({-1, D, K, W})
         << "\n  %" << f << "j = tensor.collapse_shape %" << f
         << "k [[0], [1, 2], [3]] : " << ty({-1, D, K, W}) << " into "
         << ty({-1, J, W}) << "\n";
    }
    fields[0] = name + "aj";
    fields[1] = name + "bj";
  }
  std::string product = K > 1 ? name + "g" : name;
  os << "  %" << product << " = sezm.grid_product %" << fields[0] << ", %"
     << fields[1] << " grid(%" << grid.to << ", %" << grid.from << ") : ("
     << ty({-1, J, W}) << ", " << ty({-1, J, W}) << ", " << ty({J, P}) << ", "
     << ty({P, J}) << ") -> " << ty({-1, J, W}) << "\n";
  if (K == 1)
    return;
  os << "  %" << name << "gk = tensor.expand_shape %" << product
     << " [[0], [1, 2], [3]] output_shape [%n, " << D << ", " << K << ", " << W
     << "] : " << ty({-1, J, W}) << " into " << ty({-1, D, K, W}) << "\n  %"
     << name << " = tensor.collapse_shape %" << name
     << "gk [[0], [1], [2, 3]] : " << ty({-1, D, K, W}) << " into "
     << ty({-1, D, K * W}) << "\n";
}

/// DeePMD-kit's grid net `net` on %<left> and %<right> (N, D, Cin), named
/// by `v`: the fields, their grid product, the output map, then the scalar
/// path: out times sigmoid(sp gate) (every row and frame), plus
/// silu(sp_left) sp_right in row 0 of frame 0, with sp = [sp_left,
/// sp_right] the inputs' l = 0 rows (through left0 / right0 where given).
/// Defines %<v> (N, D, K W).
void writeGridNet(Writer &w, const std::string &v, const std::string &left,
                  const std::string &right, const GridNet &net,
                  const GridNames &grid, int64_t L, int64_t D) {
  const int64_t K = grid.frames, Cin = net.inWidth, Wg = net.gridWidth,
                W = net.width;
  std::ostringstream &os = w.os;
  auto ty = [&](Dims dims) { return w.tensor(dims); };
  os << "  // Grid net: two fields, multiplied on the " << grid.points
     << "-point grid" << (K > 1 ? " (" + std::to_string(K) + " frames)" : "")
     << ", then the scalar path.\n";
  for (auto [side, in, weight] :
       {std::tuple{"l", left, net.left}, std::tuple{"r", right, net.right}})
    os << "  %" << v << side << " = sezm.degree_linear %" << in << " weight %"
       << weight << " lmax = " << L << " : (" << ty({-1, D, Cin}) << ", "
       << ty({L + 1, Cin, K * Wg}) << ") -> " << ty({-1, D, K * Wg}) << "\n";
  writeGridProduct(w, v + "p", v + "l", v + "r", D, grid, Wg);
  std::string product = v + "p";
  if (!net.out.empty()) {
    os << "  %" << v << "pf = tensor.collapse_shape %" << product
       << " [[0, 1], [2]] : " << ty({-1, D, K * Wg}) << " into "
       << ty({-1, K * Wg}) << "\n  %" << v << "pn = tensor.dim %" << v
       << "pf, %c0 : " << ty({-1, K * Wg}) << "\n";
    w.matmul(v + "po", v + "pn", v + "pf", K * Wg, net.out, K * W);
    os << "  %" << v << "pw = tensor.expand_shape %" << v
       << "po [[0, 1], [2]] output_shape [%n, " << D << ", " << K * W
       << "] : " << ty({-1, K * W}) << " into " << ty({-1, D, K * W}) << "\n";
    product = v + "pw";
  }

  // The scalar pair: the inputs' l = 0 rows.
  std::string sp[2];
  for (auto [i, in, row0] :
       {std::tuple{0, left, net.left0}, std::tuple{1, right, net.right0}}) {
    std::string s = v + (i ? "sr" : "sl");
    os << "  %" << s << "f = tensor.collapse_shape %" << in
       << " [[0], [1, 2]] : " << ty({-1, D, Cin}) << " into "
       << ty({-1, D * Cin}) << "\n";
    w.matmul(s + "0", "n", s + "f", D * Cin, net.select, Cin);
    sp[i] = s + "0";
    if (!row0.empty()) {
      w.matmul(s, "n", s + "0", Cin, row0, W);
      sp[i] = s;
    }
  }
  w.matmul(v + "zl", "n", sp[0], W, net.gateLeft, W);
  w.matmul(v + "zr", "n", sp[1], W, net.gateRight, W);
  os << "  %" << v << "z = arith.addf %" << v << "zl, %" << v
     << "zr : " << ty({-1, W}) << "\n";
  w.sigmoid(v + "gate", "n", v + "z", W);
  w.silu(v + "sw", "n", sp[0], W);
  os << "  %" << v << "swg = arith.mulf %" << v << "sw, %" << sp[1] << " : "
     << ty({-1, W}) << "\n";
  std::string gate = v + "gate", swiglu = v + "swg";
  if (K > 1) {
    w.matmul(v + "gateK", "n", gate, W, net.tile, K * W);
    w.matmul(v + "swgK", "n", swiglu, W, net.tile, K * W);
    gate = v + "gateK";
    swiglu = v + "swgK";
  }
  w.broadcast(v + "gateX", "n", gate, D, K * W, 1);
  os << "  %" << v << "gg = arith.mulf %" << product << ", %" << v
     << "gateX : " << ty({-1, D, K * W}) << "\n";
  w.broadcast(v + "swB", "n", swiglu, D, K * W, 1);
  w.broadcast(v + "mask", "n", net.mask, D, K * W, 0);
  os << "  %" << v << "sw0 = arith.mulf %" << v << "swB, %" << v
     << "mask : " << ty({-1, D, K * W}) << "\n"
     << "  %" << v << " = arith.addf %" << v << "gg, %" << v
     << "sw0 : " << ty({-1, D, K * W}) << "\n";
}

/// DeePMD-kit's env seed, defining %x0 (N, D, C) from %<typeRows> (the
/// type embedding in row 0). FiLM: rt = [s, s v / r] with s = env / r
/// (E, 4); g = G([rbf_proj(rbf), te[t_src], te[t_dst]]) (E, e); A = isd
/// sum_dst rt (x) g (N, 4, e); the Gram product A^T A[:, :, :a] (N, e, a)
/// through output_proj to scale and shift logits (ScalarRMSNorm with
/// edge_norm); x0 = h (1 + exp(sa) tanh(s)) + exp(sb) tanh(t) in row 0.
/// GIE: isd sum_dst D[e, l^2+l, d] rad[e, l, :] for the rows d of degree
/// l >= 1, as an envelope aggregation of m = 0 rows with env 1.
void writeEnvSeed(Writer &w, const Config &c, const std::string &typeRows,
                  double filmScale, double filmShift) {
  const int64_t C = c.channels, L = c.lmax, D = c.packed(), Dm = c.reduced(),
                K = c.radial, e = c.seedEmbed(), a = c.seedAxis(),
                rb = c.seedRbf(), hid = c.seedHidden(), R = (L + 1) * C;
  const std::string &t = w.t;
  std::ostringstream &os = w.os;
  auto ty = [&](Dims dims) { return w.tensor(dims); };
  auto fill = [&](const std::string &name, const std::string &rows,
                  const std::string &value, Dims dims) {
    os << "  %" << name << "V = arith.constant " << value << " : " << t
       << "\n  %" << name << "E = tensor.empty(%" << rows << ") : " << ty(dims)
       << "\n  %" << name << " = linalg.fill ins(%" << name << "V : " << t
       << ") outs(%" << name << "E : " << ty(dims) << ") -> " << ty(dims)
       << "\n";
  };
  os << "\n  // Env seed: rt = [s, s v / r], s = env / r.\n"
     << "  %esvv = arith.mulf %v, %v : " << ty({-1, 3}) << "\n"
     << "  %esones31 = arith.constant dense<1.0> : " << ty({3, 1}) << "\n"
     << "  %esones13 = arith.constant dense<1.0> : " << ty({1, 3}) << "\n"
     << "  %ese0 = arith.constant dense<[[1.0, 0.0, 0.0, 0.0]]> : "
     << ty({1, 4}) << "\n"
     << "  %esp = arith.constant dense<[[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, "
        "0.0], [0.0, 0.0, 0.0, 1.0]]> : "
     << ty({3, 4}) << "\n";
  w.matmul("esr2", "edges", "esvv", 3, "esones31", 1);
  fill("eseps", "edges", "1.0e-14", {-1, 1});
  os << "  %esr2e = arith.addf %esr2, %eseps : " << ty({-1, 1}) << "\n"
     << "  %esir = math.rsqrt %esr2e : " << ty({-1, 1}) << "\n"
     << "  %ess = arith.mulf %env1, %esir : " << ty({-1, 1}) << "\n"
     << "  %essir = arith.mulf %ess, %esir : " << ty({-1, 1}) << "\n";
  w.matmul("essirB", "edges", "essir", 1, "esones13", 3);
  os << "  %essv = arith.mulf %essirB, %v : " << ty({-1, 3}) << "\n";
  w.matmul("esrtA", "edges", "ess", 1, "ese0", 4);
  w.matmul("esrtB", "edges", "essv", 3, "esp", 4);
  os << "  %esrt = arith.addf %esrtA, %esrtB : " << ty({-1, 4}) << "\n"
     << "  // g = G([rbf_proj, te[t_src], te[t_dst]]).\n";
  w.matmul("esp1", "edges", "rbf", K, "es1", rb);
  w.silu("esp1a", "edges", "esp1", rb);
  w.matmul("esp2", "edges", "esp1a", rb, "es2", rb);
  w.matmul("esg1r", "edges", "esp2", rb, "esg", hid);
  w.typePairLookup("esg1t", hid, "esgs", "esgd",
                   static_cast<int64_t>(c.typeMap.size()) + 1, hid, "");
  os << "  %esg1 = arith.addf %esg1r, %esg1t : " << ty({-1, hid}) << "\n";
  w.silu("esg1a", "edges", "esg1", hid);
  w.matmul("esgo", "edges", "esg1a", hid, "esg2", e);
  os << "  // A = isd sum_dst rt (x) g, then the Gram product with its first "
     << a << " columns.\n";
  os << "  %esrtXE = tensor.empty(%edges) : " << ty({-1, 4, e}) << "\n"
     << "  %esrtX = linalg.broadcast ins(%esrt : " << ty({-1, 4})
     << ") outs(%esrtXE : " << ty({-1, 4, e}) << ") dimensions = [2]\n"
     << "  %esgoXE = tensor.empty(%edges) : " << ty({-1, 4, e}) << "\n"
     << "  %esgoX = linalg.broadcast ins(%esgo : " << ty({-1, e})
     << ") outs(%esgoXE : " << ty({-1, 4, e}) << ") dimensions = [1]\n"
     << "  %esout = arith.mulf %esrtX, %esgoX : " << ty({-1, 4, e}) << "\n"
     << "  %esagg0 = sezm.segment_reduce %esout over(%do, %dr) : ("
     << ty({-1, 4, e}) << ", tensor<?xi64>, tensor<?xi64>) -> "
     << ty({-1, 4, e}) << "\n"
     << "  %esisdE = tensor.empty(%n) : " << ty({-1, 4, e}) << "\n"
     << "  %esisdX = linalg.broadcast ins(%isd : " << ty({-1})
     << ") outs(%esisdE : " << ty({-1, 4, e}) << ") dimensions = [1, 2]\n"
     << "  %esagg = arith.mulf %esagg0, %esisdX : " << ty({-1, 4, e}) << "\n"
     << "  %esaggc = tensor.collapse_shape %esagg [[0, 1], [2]] : "
     << ty({-1, 4, e}) << " into " << ty({-1, e}) << "\n"
     << "  %esnk = tensor.dim %esaggc, %c0 : " << ty({-1, e}) << "\n";
  w.matmul("esaxc", "esnk", "esaggc", e, "esax", a);
  os << "  %esax3 = tensor.expand_shape %esaxc [[0, 1], [2]] output_shape [%n, "
        "4, "
     << a << "] : " << ty({-1, a}) << " into " << ty({-1, 4, a}) << "\n"
     << "  %esXE = tensor.empty(%n) : " << ty({-1, 4, e, a}) << "\n"
     << "  %esX = linalg.broadcast ins(%esagg : " << ty({-1, 4, e})
     << ") outs(%esXE : " << ty({-1, 4, e, a}) << ") dimensions = [3]\n"
     << "  %esYE = tensor.empty(%n) : " << ty({-1, 4, e, a}) << "\n"
     << "  %esY = linalg.broadcast ins(%esax3 : " << ty({-1, 4, a})
     << ") outs(%esYE : " << ty({-1, 4, e, a}) << ") dimensions = [2]\n"
     << "  %esXY = arith.mulf %esX, %esY : " << ty({-1, 4, e, a}) << "\n";
  fill("esGz", "n", "0.0", {-1, e, a});
  os << "  %esG = linalg.reduce ins(%esXY : " << ty({-1, 4, e, a})
     << ") outs(%esGz : " << ty({-1, e, a}) << ") dimensions = [1]\n"
     << "    (%in: " << t << ", %acc: " << t << ") {\n"
     << "      %sum = arith.addf %in, %acc : " << t << "\n"
     << "      linalg.yield %sum : " << t << "\n"
     << "    }\n"
     << "  %esGf = tensor.collapse_shape %esG [[0], [1, 2]] : "
     << ty({-1, e, a}) << " into " << ty({-1, e * a}) << "\n";
  w.matmul("fsl", "n", "esGf", e * a, "esos", C);
  w.matmul("ftl", "n", "esGf", e * a, "esot", C);
  std::string scaleHat = "fsl", shiftHat = "ftl";
  if (c.edgeNorm) {
    for (const auto &[in, weight] :
         {std::pair<std::string, std::string>{"fsl", "fsn"}, {"ftl", "ftn"}})
      os << "  %" << in << "n = sezm.rms_norm %" << in << " scale %" << weight
         << " eps = 1.0e-7 : (" << ty({-1, C}) << ", " << ty({C}) << ") -> "
         << ty({-1, C}) << "\n";
    scaleHat = "fsln";
    shiftHat = "ftln";
  }
  os << "  // FiLM: x0 = h (1 + exp(sa) tanh(s)) + exp(sb) tanh(t), row 0.\n"
     << "  %fst = math.tanh %" << scaleHat << " : " << ty({-1, C}) << "\n"
     << "  %ftt = math.tanh %" << shiftHat << " : " << ty({-1, C}) << "\n";
  fill("fks", "n", floatLiteral(filmScale), {-1, C});
  fill("fkt", "n", floatLiteral(filmShift), {-1, C});
  fill("fone", "n", "1.0", {-1, C});
  os << "  %fsa = arith.mulf %fks, %fst : " << ty({-1, C}) << "\n"
     << "  %fscale = arith.addf %fone, %fsa : " << ty({-1, C}) << "\n"
     << "  %fshift = arith.mulf %fkt, %ftt : " << ty({-1, C}) << "\n";
  w.broadcast("fscaleX", "n", "fscale", D, C, 1);
  w.broadcast("fshiftX", "n", "fshift", D, C, 1);
  w.broadcast("frow0X", "n", "frow0", D, C, 0);
  os << "  %fx0a = arith.mulf %" << typeRows
     << ", %fscaleX : " << ty({-1, D, C}) << "\n"
     << "  %fx0b = arith.mulf %fshiftX, %frow0X : " << ty({-1, D, C}) << "\n"
     << "  %fx0 = arith.addf %fx0a, %fx0b : " << ty({-1, D, C}) << "\n";

  os << "  // GIE: m = 0 rows rad[l] / rescale_l (l >= 1), aggregated with "
        "env 1.\n"
     << "  %gr3 = tensor.expand_shape %r1 [[0], [1, 2]] output_shape [%edges, "
     << L + 1 << ", " << C << "] : " << ty({-1, R}) << " into "
     << ty({-1, L + 1, C}) << "\n";
  w.broadcast("gsX", "edges", "gies", L + 1, C, 0);
  os << "  %grs = arith.mulf %gr3, %gsX : " << ty({-1, L + 1, C}) << "\n";
  w.swapLastAxes("grt", "edges", "grs", L + 1, C);
  os << "  %grc = tensor.collapse_shape %grt [[0, 1], [2]] : "
     << ty({-1, C, L + 1}) << " into " << ty({-1, L + 1}) << "\n"
     << "  %gnc = tensor.dim %grc, %c0 : " << ty({-1, L + 1}) << "\n";
  w.matmul("gre", "gnc", "grc", L + 1, "giee", Dm);
  os << "  %grx = tensor.expand_shape %gre [[0, 1], [2]] output_shape "
        "[%edges, "
     << C << ", " << Dm << "] : " << ty({-1, Dm}) << " into " << ty({-1, C, Dm})
     << "\n";
  w.swapLastAxes("gu", "edges", "grx", C, Dm);
  fill("gone", "edges", "1.0", {-1});
  os << "  %gie = sezm.envelope_aggregate %gu by %w env %gone norm %isd "
        "over(%do, %dr) lmax = "
     << L << " : (" << ty({-1, Dm, C}) << ", " << ty({-1, D, D}) << ", "
     << ty({-1}) << ", " << ty({-1}) << ", tensor<?xi64>, tensor<?xi64>) -> "
     << ty({-1, D, C}) << "\n"
     << "  %x0 = arith.addf %fx0, %gie : " << ty({-1, D, C}) << "\n";
}

/// DeePMD-kit's attention aggregation of block `v`, defining %<v>agg
/// (N, D, Cw) from the edge-frame messages %<u>: a = row 0 of %<v>xw per
/// focus stream, ScalarRMSNorm'd; q = a Wq, k = a Wk; logits <q[dst],
/// k[src]> / sqrt(Cf/H) per head plus the radial bias rw[e, 0] Wl; the
/// envelope-gated softmax with its null mass and the rotate-back sum
/// (sezm.attention_aggregate); times sigmoid(RMS_g(a) Wg) per head. The
/// gathers q[dst] and k[src] are sezm.segment_reduce_grad over each CSR.
void writeAttention(Writer &w, const Config &c, const std::string &v,
                    const std::string &u, const std::string &radw) {
  const int64_t L = c.lmax, D = c.packed(), Dm = c.reduced(), F = c.focus,
                Cf = c.focusDim, Cw = c.wide(), H = c.heads;
  std::ostringstream &os = w.os;
  auto ty = [&](Dims dims) { return w.tensor(dims); };
  os << "  // Attention: " << H << " head(s) per focus stream.\n"
     << "  %" << v << "axf = tensor.collapse_shape %" << v
     << "xw [[0], [1, 2]] : " << ty({-1, D, Cw}) << " into " << ty({-1, D * Cw})
     << "\n";
  w.matmul(v + "a", "n", v + "axf", D * Cw, "arow0", Cw);
  os << "  %" << v << "a3 = tensor.expand_shape %" << v
     << "a [[0], [1, 2]] output_shape [%n, " << F << ", " << Cf
     << "] : " << ty({-1, Cw}) << " into " << ty({-1, F, Cf}) << "\n"
     << "  %" << v << "ac = tensor.collapse_shape %" << v
     << "a3 [[0, 1], [2]] : " << ty({-1, F, Cf}) << " into " << ty({-1, Cf})
     << "\n"
     << "  %" << v << "au = sezm.rms_norm %" << v
     << "ac scale %aunit eps = 1.0e-7 : (" << ty({-1, Cf}) << ", " << ty({Cf})
     << ") -> " << ty({-1, Cf}) << "\n"
     << "  %" << v << "au3 = tensor.expand_shape %" << v
     << "au [[0, 1], [2]] output_shape [%n, " << F << ", " << Cf
     << "] : " << ty({-1, Cf}) << " into " << ty({-1, F, Cf}) << "\n";
  // Each ScalarRMSNorm: the unit norm times its (F, Cf) scale.
  for (const char *norm : {"aqn", "agn"}) {
    std::string scaled = v + norm;
    w.broadcast(scaled + "X", "n", v + norm, F, Cf, 0);
    os << "  %" << scaled << "Y = arith.mulf %" << v << "au3, %" << scaled
       << "X : " << ty({-1, F, Cf}) << "\n"
       << "  %" << scaled << "F = tensor.collapse_shape %" << scaled
       << "Y [[0], [1, 2]] : " << ty({-1, F, Cf}) << " into " << ty({-1, Cw})
       << "\n";
  }
  w.matmul(v + "aq", "n", v + "aqnF", Cw, v + "aqw", Cw);
  w.matmul(v + "ak", "n", v + "aqnF", Cw, v + "akw", Cw);
  os << "  %" << v << "aqd = sezm.segment_reduce_grad %" << v
     << "aq over(%do, %dr) : (" << ty({-1, Cw})
     << ", tensor<?xi64>, tensor<?xi64>) -> " << ty({-1, Cw}) << "\n"
     << "  %" << v << "aks = sezm.segment_reduce_grad %" << v
     << "ak over(%so, %sr) : (" << ty({-1, Cw})
     << ", tensor<?xi64>, tensor<?xi64>) -> " << ty({-1, Cw}) << "\n"
     << "  %" << v << "aqk = arith.mulf %" << v << "aqd, %" << v
     << "aks : " << ty({-1, Cw}) << "\n";
  w.matmul(v + "alq", "edges", v + "aqk", Cw, v + "ahs", F * H);
  w.matmul(v + "alr", "edges", radw, (L + 1) * Cw, v + "arl", F * H);
  os << "  %" << v << "al = arith.addf %" << v << "alq, %" << v
     << "alr : " << ty({-1, F * H}) << "\n"
     << "  %" << v << "al3 = tensor.expand_shape %" << v
     << "al [[0], [1, 2]] output_shape [%edges, " << F << ", " << H
     << "] : " << ty({-1, F * H}) << " into " << ty({-1, F, H}) << "\n"
     << "  %" << v << "apre = sezm.attention_aggregate %" << u
     << " by %w logit %" << v << "al3 env %env null %" << v
     << "anl over(%do, %dr) lmax = " << L << " : (" << ty({-1, Dm, Cw}) << ", "
     << ty({-1, D, D}) << ", " << ty({-1, F, H}) << ", " << ty({-1}) << ", "
     << ty({F, H}) << ", tensor<?xi64>, tensor<?xi64>) -> " << ty({-1, D, Cw})
     << "\n";
  w.matmul(v + "agz", "n", v + "agnF", Cw, v + "agw", F * H);
  w.sigmoid(v + "ag", "n", v + "agz", F * H);
  w.matmul(v + "agc", "n", v + "ag", F * H, v + "ahx", Cw);
  w.broadcast(v + "agX", "n", v + "agc", D, Cw, 1);
  os << "  %" << v << "agg = arith.mulf %" << v << "apre, %" << v
     << "agX : " << ty({-1, D, Cw}) << "\n";
}

void writeModule(const Config &c, StateDict &state, Writer &w, Weights &ws) {
  const int64_t C = c.channels, L = c.lmax, D = c.packed(), Dm = c.reduced(),
                F = c.focus, Cf = c.focusDim, Cw = c.wide(), K = c.radial,
                T = static_cast<int64_t>(c.typeMap.size()),
                KSZ = c.kernelSize(), Hf = c.ffnHidden, Ho = c.readoutHidden,
                Hfit = c.fitHidden, M0 = (L + 1) * Cf, M1 = L * Cf;
  const std::string &t = w.t;
  std::ostringstream args;
  const std::string &to = w.outer;
  auto elementOf = [](const std::string &type) {
    return type == "f64" ? ElementType::F64 : ElementType::F32;
  };
  auto typedArg = [&](const std::string &name, const std::string &value,
                      const Array &array, const std::string &element) {
    std::string type = "tensor<";
    for (int64_t d : array.shape)
      type += std::to_string(d) + "x";
    type += element + ">";
    args << ",\n    %" << value << ": " << type << " {sezm.name = \"" << name
         << "\"}";
    ws.add(name, array, elementOf(element));
  };
  auto arg = [&](const std::string &name, const std::string &value,
                 const Array &array) { typedArg(name, value, array, t); };

  // Each block's sandwich norms' degree weights, as attribute text.
  std::vector<std::array<std::string, 4>> normWeights(c.blocks);
  // Each block's grid nets (message node, FFN), where it has them.
  std::vector<GridNet> messageNets(c.blocks), ffnNets(c.blocks);

  // Weights, in the order the function takes them.
  arg("type_embedding", "temb",
      state.take("descriptor.type_embedding.adam_type_embedding", {T + 1, C}));
  arg("radial_basis.freqs", "freqs",
      squeezeFront(state.take("descriptor.radial_basis.adam_freqs", {1, K})));
  arg("radial_embedding.w1", "rw1",
      state.take("descriptor.radial_embedding.net.0.matrix",
                 {K, c.radialHidden}));
  // With edge_norm the MLP is linear, RMSNorm, SiLU, linear (net.0..3).
  if (c.edgeNorm)
    arg("radial_embedding.norm", "rns",
        state.take("descriptor.radial_embedding.net.1.adam_scale",
                   {c.radialHidden}));
  arg("radial_embedding.w2", "rw2",
      state.take(std::string("descriptor.radial_embedding.net.") +
                     (c.edgeNorm ? "3" : "2") + ".matrix",
                 {c.radialHidden, (L + 1) * C}));
  // The grid nets' grids (rebuilt, not in the state dict): to_grid as
  // (D K, P) and from_grid as (P, D K), for products over the coefficient
  // axis; and their constant selections, tilings and masks, each once.
  std::set<std::string> constants;
  auto constant = [&](const std::string &name, const std::string &value,
                      const std::function<Array()> &make) {
    if (constants.insert(value).second)
      arg(name, value, make());
    return value;
  };
  GridNames s2Names, so3Names;
  if (c.s2Ffn) {
    std::optional<sezmrt::S2Grid> grid = sezmrt::s2Grid(static_cast<int>(L));
    if (!grid)
      fail("no S2 grid for lmax " + std::to_string(L));
    int64_t P = grid->points();
    arg("ffn.s2_to_grid", "s2to", transposed(grid->toGrid, P, D));
    arg("ffn.s2_from_grid", "s2from", transposed(grid->fromGrid, D, P));
    s2Names = {"s2to", "s2from", 1, P};
  }
  const int64_t K3 = 2 * c.kmax + 1;
  if (c.ffnSO3 || c.messageSO3 || c.readout != "none") {
    std::optional<sezmrt::SO3Grid> grid =
        sezmrt::so3Grid(static_cast<int>(L), static_cast<int>(c.kmax));
    if (!grid)
      fail("no SO(3) grid for lmax " + std::to_string(L) + ", kmax " +
           std::to_string(c.kmax));
    int64_t G = grid->points(), J = grid->coefficients();
    arg("grid.so3_to_grid", "so3to", transposed(grid->toGrid, G, J));
    arg("grid.so3_from_grid", "so3from", transposed(grid->fromGrid, J, G));
    so3Names = {"so3to", "so3from", K3, G};
  }
  // The (D W, W) selection of row 0 of flattened (N, D W) features.
  auto rowSelect = [&](int64_t width) {
    return constant("row0_select_" + std::to_string(width),
                    "sel" + std::to_string(width),
                    [&] { return rowZeroSelection(D, width); });
  };
  // The constants of a grid net of `frames` frames, input width `in` and
  // width `width`.
  auto gridConstants = [&](GridNet &net, int64_t frames) {
    int64_t width = net.width;
    std::string kw = std::to_string(frames) + "x" + std::to_string(width);
    net.select = rowSelect(net.inWidth);
    net.mask = constant("grid.row0_mask_" + kw, "gmask" + kw, [&] {
      Array mask({D, frames * width});
      std::fill(mask.values.begin(), mask.values.begin() + width, 1.0);
      return mask;
    });
    if (frames > 1)
      net.tile = constant("grid.frame_tile_" + kw, "gtile" + kw, [&] {
        Array tile({width, frames * width});
        for (int64_t f = 0; f < frames; ++f)
          for (int64_t k = 0; k < width; ++k)
            tile.values[k * frames * width + f * width + k] = 1.0;
        return tile;
      });
  };
  // A grid net's weights from its fields' degree linears `left` and
  // `right` (L+1, Cin, K W): DeePMD-kit's grid op (module `key`) with its
  // channel maps folded into them, the scalar pair's l = 0 matrices where
  // given (`left0`, `right0`), the output map and the scalar gate (2W, W)
  // split by the half it reads. Arguments are named `name` + `fieldArg` /
  // "grid_op.out_proj" / "scalar_gate.*", values `fieldValue` + l / r,
  // `outValue`, `value` + sgl / sgr. The grid MLP's maps read each frame's
  // [left, right] side by side in self mode (the FFNs), each field alone in
  // cross mode (the message node).
  auto gridNetWeights = [&](const std::string &name, const std::string &value,
                            const std::string &fieldArg,
                            const std::string &fieldValue,
                            const std::string &outValue, const std::string &key,
                            const Array &left, const Array &right,
                            const Array &left0, const Array &right0,
                            int64_t frames, int64_t width, GridOp op,
                            bool self) {
    GridNet net;
    net.inWidth = left.shape[1];
    net.width = net.gridWidth = width;
    Array gridLeft = left, gridRight = right, out;
    auto fold = [&](const Array &field, const char *map, int64_t mapWidth) {
      Array m =
          state.take(key + "grid_op." + map + ".weight",
                     {self && op == GridOp::Mlp ? 2 * width : width, mapWidth});
      if (!self || op != GridOp::Mlp)
        return foldFrames(field, m, frames);
      // Self mode: the map reads each frame's [left, right] channels.
      return sum(foldFrames(left, firstAxisSlice(m, 0, width), frames),
                 foldFrames(right, firstAxisSlice(m, width, width), frames));
    };
    if (op != GridOp::Product) {
      net.gridWidth = op == GridOp::Mlp ? 2 * width : width;
      gridLeft = fold(left, "left_proj", net.gridWidth);
      gridRight = fold(right, "right_proj", net.gridWidth);
      // The router's softmax over one branch is 1 for any input.
      if (op == GridOp::Branch)
        state.take(key + "grid_op.router.weight", {2 * width, 1});
      out = state.take(key + "grid_op.out_proj.weight", {net.gridWidth, width});
    }
    net.left = fieldValue + "l";
    net.right = fieldValue + "r";
    arg(name + fieldArg + "left", net.left, gridLeft);
    arg(name + fieldArg + "right", net.right, gridRight);
    if (!left0.values.empty()) {
      net.left0 = fieldValue + "l0";
      net.right0 = fieldValue + "r0";
      arg(name + fieldArg + "left0", net.left0, left0);
      arg(name + fieldArg + "right0", net.right0, right0);
    }
    if (!out.values.empty()) {
      net.out = outValue;
      arg(name + "grid_op.out_proj", net.out, blockDiagonal(out, frames));
    }
    Array gate = state.take(key + "scalar_gate.weight", {2 * width, width});
    net.gateLeft = value + "sgl";
    net.gateRight = value + "sgr";
    arg(name + "scalar_gate.left", net.gateLeft,
        firstAxisSlice(gate, 0, width));
    arg(name + "scalar_gate.right", net.gateRight,
        firstAxisSlice(gate, width, width));
    gridConstants(net, frames);
    return net;
  };
  // A self-mode grid net (an FFN's) on so3_linear_1 `w1` (L+1, Cin, 2 K W):
  // its halves are the fields, their l = 0 frame-0 blocks the scalar pair's.
  auto selfGridNet = [&](const std::string &name, const std::string &value,
                         const std::string &key, const Array &w1,
                         int64_t frames, int64_t width, GridOp op) {
    Array left = lastAxisSlice(w1, 0, frames * width),
          right = lastAxisSlice(w1, frames * width, frames * width);
    auto row0 = [&](const Array &half) {
      return squeezeFront(firstAxisSlice(lastAxisSlice(half, 0, width), 0, 1));
    };
    return gridNetWeights(name, value, "so3_linear_1.", value + "f1",
                          value + "gop", key, left, right, row0(left),
                          row0(right), frames, width, op, /*self=*/true);
  };
  // The env seed. The G net's input [rbf_proj, te[t_src], te[t_dst]] is
  // split by part: its type rows become per-type tables te W (T+1,
  // hidden). The FiLM strengths exp(log) are folded into constants below.
  double filmScale = 0.0, filmShift = 0.0;
  if (c.envSeed) {
    const int64_t e = c.seedEmbed(), ts = c.seedType(), a = c.seedAxis(),
                  rb = c.seedRbf(), hid = c.seedHidden();
    std::string p = "descriptor.env_seed_embedding.";
    arg("env_seed.rbf_proj.w1", "es1",
        state.take(p + "rbf_proj_layer1.matrix", {K, rb}));
    arg("env_seed.rbf_proj.w2", "es2",
        state.take(p + "rbf_proj_layer2.matrix", {rb, rb}));
    Array te =
        state.take(p + "env_type_embed.adam_type_embedding", {T + 1, ts});
    Array g1 = state.take(p + "g_layer1.matrix", {rb + 2 * ts, hid});
    arg("env_seed.g1.rbf", "esg", firstAxisSlice(g1, 0, rb));
    arg("env_seed.g1.src_types", "esgs",
        product(te, firstAxisSlice(g1, rb, ts)));
    arg("env_seed.g1.dst_types", "esgd",
        product(te, firstAxisSlice(g1, rb + ts, ts)));
    arg("env_seed.g2", "esg2", state.take(p + "g_layer2.matrix", {hid, e}));
    Array axis({e, a});
    for (int64_t k = 0; k < a; ++k)
      axis.values[k * a + k] = 1.0;
    arg("env_seed.axis_select", "esax", axis);
    Array out = state.take(p + "output_proj.matrix", {e * a, 2 * C});
    arg("env_seed.output_scale", "esos", lastAxisSlice(out, 0, C));
    arg("env_seed.output_shift", "esot", lastAxisSlice(out, C, C));
    if (c.edgeNorm) {
      arg("film.scale_norm", "fsn",
          squeezeFront(
              state.take("descriptor.film_scale_norm.adam_scale", {1, C})));
      arg("film.shift_norm", "ftn",
          squeezeFront(
              state.take("descriptor.film_shift_norm.adam_scale", {1, C})));
    }
    filmScale = std::exp(
        state.take("descriptor.film_scale_strength_log", {1}).values[0]);
    filmShift = std::exp(
        state.take("descriptor.film_shift_strength_log", {1}).values[0]);
    Array row0({D, C});
    std::fill(row0.values.begin(), row0.values.begin() + C, 1.0);
    arg("film.row0_mask", "frow0", row0);
    // GIE as an envelope aggregation of m = 0 rows: rad[l] / rescale_l in
    // reduced row l (l >= 1), zero elsewhere; env 1.
    Array gieScale({L + 1, C});
    for (int64_t l = 1; l <= L; ++l)
      for (int64_t k = 0; k < C; ++k)
        gieScale.values[l * C + k] =
            l > 1 ? std::sqrt(3.0 / static_cast<double>(2 * l + 1)) : 1.0;
    arg("gie.scale", "gies", gieScale);
    Array embed({L + 1, Dm});
    for (int64_t l = 0; l <= L; ++l)
      embed.values[l * Dm + l] = 1.0;
    arg("gie.embed", "giee", embed);
  }
  if (c.heads > 0) {
    arg("attention.row0", "arow0", rowZeroSelection(D, Cw));
    // The ScalarRMSNorms' per-stream scales are applied after a unit one.
    Array unit({Cf});
    std::fill(unit.values.begin(), unit.values.end(), 1.0);
    arg("attention.unit_scale", "aunit", unit);
  }
  for (int64_t b = 0; b < c.blocks; ++b) {
    std::string p = "descriptor.blocks." + std::to_string(b) + ".";
    std::string n = "block" + std::to_string(b) + ".";
    std::string v = "b" + std::to_string(b);
    arg(n + "pre_focus_mix", v + "pre",
        state.take(p + "so2_conv.pre_focus_mix.weight", {L + 1, C, Cw}));
    if (Cw != C)
      arg(n + "radial_hidden_proj", v + "rhp",
          blockDiagonal(
              state.take(p + "so2_conv.radial_hidden_proj.weight", {C, Cw}),
              L + 1));
    arg(n + "radial_degree_mixer", v + "mix",
        state.take(p + "so2_conv.radial_degree_mixer.weight",
                   {(L + 1) * Cw, KSZ}));
    arg(n + "channel_basis", v + "cb",
        state.take(p + "so2_conv.radial_degree_mixer.channel_basis", {1, Cw}));
    if (F > 1)
      arg(n + "focus_compete", v + "fc",
          state.take(p + "so2_conv.adamw_focus_compete_w", {Cf, F}));
    if (F > 1 && c.edgeNorm)
      arg(n + "focus_compete_norm", v + "fcn",
          state.take(p + "so2_conv.focus_compete_norm.adam_scale", {F, Cf}));
    if (c.heads > 0) {
      // Per focus stream f and head h (channels f Cf + h Cf/H + ...): the
      // q / k projections block-diagonal over the streams, with the logit
      // scale 1 / sqrt(Cf/H) in the head sums; the radial logit bias and
      // the head gate as (channels, F H) products.
      const int64_t H = c.heads, hd = Cf / H;
      std::string ap = p + "so2_conv.";
      for (const char *norm : {"attn_qk_norm", "attn_output_gate_norm"})
        arg(n + norm, v + (norm[5] == 'q' ? "aqn" : "agn"),
            state.take(ap + norm + ".adam_scale", {F, Cf}));
      for (const char *proj : {"attn_q_proj", "attn_k_proj"}) {
        Array w = state.take(ap + proj + ".weight", {Cf, F * Cf});
        Array block({Cw, Cw});
        for (int64_t f = 0; f < F; ++f)
          for (int64_t i = 0; i < Cf; ++i)
            for (int64_t o = 0; o < Cf; ++o)
              block.values[(f * Cf + i) * Cw + f * Cf + o] =
                  w.values[i * (F * Cf) + f * Cf + o];
        arg(n + proj, v + (proj[5] == 'q' ? "aqw" : "akw"), block);
      }
      Array headSum({Cw, F * H}), headSpread({F * H, Cw});
      for (int64_t k = 0; k < Cw; ++k) {
        headSum.values[k * F * H + k / hd] =
            1.0 / std::sqrt(static_cast<double>(hd));
        headSpread.values[(k / hd) * Cw + k] = 1.0;
      }
      arg(n + "attention.head_sum", v + "ahs", headSum);
      arg(n + "attention.head_spread", v + "ahx", headSpread);
      Array logitW = state.take(ap + "adamw_attn_logit_w", {Cf, F, H});
      Array gateW = state.take(ap + "adamw_attn_gate_w", {Cf, F, H});
      Array logitBias({(L + 1) * Cw, F * H}), gate({Cw, F * H});
      for (int64_t f = 0; f < F; ++f)
        for (int64_t i = 0; i < Cf; ++i)
          for (int64_t h = 0; h < H; ++h) {
            logitBias.values[(f * Cf + i) * F * H + f * H + h] =
                logitW.values[(i * F + f) * H + h];
            gate.values[(f * Cf + i) * F * H + f * H + h] =
                gateW.values[(i * F + f) * H + h];
          }
      arg(n + "attention.radial_logit", v + "arl", logitBias);
      arg(n + "attention.gate", v + "agw", gate);
      arg(n + "attention.null_logit", v + "anl",
          state.take(ap + "adamw_attn_z_bias_raw", {F, H}));
    }
    for (int64_t k = 0; k < c.layers; ++k) {
      std::string lp = p + "so2_conv.so2_linears." + std::to_string(k) + ".";
      std::string ln = n + "so2_linears." + std::to_string(k) + ".";
      std::string lv = v + "l" + std::to_string(k);
      Array w0 = state.take(lp + "weight_m0", {M0, F * M0});
      Array w1 = state.take(lp + "weight_m.0", {M1, F * 2 * M1});
      arg(ln + "w0", lv + "w0", perFocus(w0, F, M0, 0, M0));
      arg(ln + "wu", lv + "wu", perFocus(w1, F, 2 * M1, 0, M1));
      arg(ln + "wv", lv + "wv", perFocus(w1, F, 2 * M1, M1, M1));
      if (k + 1 < c.layers)
        arg(n + "non_linearities." + std::to_string(k) + ".gate", lv + "g",
            perFocus(state.take(p + "so2_conv.non_linearities." +
                                    std::to_string(k) + ".gate_linear.weight",
                                {Cf, F * M1}),
                     F, M1, 0, M1));
    }
    arg(n + "post_focus_mix", v + "post",
        state.take(p + "so2_conv.post_focus_mix.weight", {L + 1, Cw, C}));
    if (c.messageSO3) {
      // DeePMD-kit's message-node SO(3) grid net (cross mode, one focus
      // stream): the frame expansion (L+1, Cw, K Cw) of the aggregated
      // message (left) and of the block's node features (right), with the
      // op's channel maps folded in; the scalar pair is their l = 0 rows;
      // the frame contraction (L+1, K Cw, Cw) with the residual scale
      // folded into its columns.
      std::string key = p + "so2_conv.message_node_grid_product.";
      std::string name = n + "message_grid.";
      Array expand =
          state.take(key + "frame_expand.weight", {L + 1, Cw, K3 * Cw});
      GridNet net = gridNetWeights(name, v + "m", "frame_expand.", v + "mx",
                                   v + "mop", key, expand, expand, Array(),
                                   Array(), K3, Cw, c.messageOp,
                                   /*self=*/false);
      Array contract =
          state.take(key + "frame_contract.weight", {L + 1, K3 * Cw, Cw});
      Array scale = state.take(key + "residual_scale", {1, Cw});
      for (size_t i = 0; i < contract.values.size(); ++i)
        contract.values[i] *= scale.values[i % Cw];
      arg(name + "frame_contract", v + "mcw", contract);
      messageNets[b] = net;
    }
    // The FFN: packed GLU, or a grid net (S2, or SO(3) with its frames).
    const int64_t Kf = c.ffnSO3 ? K3 : 1;
    Array f1 =
        state.take(p + "ffns.0.so3_linear_1.weight", {L + 1, C, 2 * Kf * Hf});
    if (c.s2Ffn || c.ffnSO3) {
      ffnNets[b] = selfGridNet(n + "ffn.", v, p + "ffns.0.act.", f1, Kf, Hf,
                               c.ffnSO3 ? c.ffnOp : GridOp::Product);
    } else {
      arg(n + "ffn.so3_linear_1", v + "f1", f1);
      arg(n + "ffn.gate", v + "fg",
          state.take(p + "ffns.0.act.gate_linear.weight", {Hf, L * Hf}));
    }
    // The sandwich norms' per-degree scales (L+1, 1, C) and l = 0 biases.
    const char *normKeys[] = {"pre_so2_norm", "post_so2_norm",
                              "pre_ffn_norms.0", "post_ffn_norms.0"};
    const char *normNames[] = {"ns0", "ns1", "ns2", "ns3"};
    for (int k = 0; k < 4; ++k) {
      if (!c.sandwich[k])
        continue;
      Array scale = state.take(p + normKeys[k] + ".adam_scale", {L + 1, 1, C});
      scale.shape = {L + 1, C};
      arg(n + normKeys[k] + ".scale", v + normNames[k] + "s", scale);
      arg(n + normKeys[k] + ".bias", v + normNames[k] + "b",
          squeezeFront(state.take(p + normKeys[k] + ".bias", {1, C})));
      // DeePMD-kit's degree weights as its checkpoint stores them (rounded
      // to its precision): one value per degree, 1 / ((2l+1)(L+1)C).
      std::string key = p + normKeys[k] + ".balance_weight";
      Array balance = state.take(key, {D});
      std::string &text = normWeights[b][k];
      text = "[";
      for (int64_t l = 0; l <= L; ++l) {
        double w = balance.values[l * l];
        double expected = 1.0 / static_cast<double>((2 * l + 1) * (L + 1) * C);
        for (int64_t d = l * l; d < (l + 1) * (l + 1); ++d)
          if (balance.values[d] != w ||
              std::abs(w - expected) > 1e-6 * expected)
            fail("state dict '" + key + "' holds " +
                 std::to_string(balance.values[d]) + " for row " +
                 std::to_string(d) +
                 ", not 1 / ((2l+1)(lmax+1)C) = " + std::to_string(expected) +
                 " (model_params and the weights disagree)");
        text += (l ? ", " : "") + floatLiteral(w);
      }
      text += "]";
    }
    arg(n + "ffn.so3_linear_2", v + "f2",
        state.take(p + "ffns.0.so3_linear_2.weight", {L + 1, Kf * Hf, C}));
  }
  std::string select = rowSelect(C);
  GridNet readoutNet;
  if (c.readout == "none") {
    arg("output_ffn.so3_linear_1", "o1",
        squeezeFront(state.take("descriptor.output_ffn.so3_linear_1.weight",
                                {1, C, 2 * Ho})));
    arg("output_ffn.so3_linear_2", "o2",
        squeezeFront(state.take("descriptor.output_ffn.so3_linear_2.weight",
                                {1, Ho, C})));
  } else {
    // so3_readout: an SO(3)-grid FFN on the whole node tensor.
    readoutNet =
        selfGridNet("output_ffn.", "o", "descriptor.output_ffn.act.",
                    state.take("descriptor.output_ffn.so3_linear_1.weight",
                               {L + 1, C, 2 * K3 * Ho}),
                    K3, Ho, c.readout == "mlp" ? GridOp::Mlp : GridOp::Product);
    arg("output_ffn.so3_linear_2", "o2",
        state.take("descriptor.output_ffn.so3_linear_2.weight",
                   {L + 1, K3 * Ho, C}));
  }
  std::string fit = "fitting_net.filter_layers.networks.0.";
  arg("fitting_net.matrix", "fm",
      state.take(fit + "hidden_layers.0.linear.matrix", {C, 2 * Hfit}));
  arg("fitting_net.bias", "fb",
      state.take(fit + "hidden_layers.0.linear.bias", {2 * Hfit}));
  arg("fitting_net.output", "fo",
      state.take(fit + "output_layer.matrix", {Hfit, 1}));
  // DeePMD-kit adds the fitting net's bias_atom_e and the atomic model's
  // out_bias to each atom's energy; one per-type table holds their sum.
  Array biasAtom = state.take("fitting_net.bias_atom_e", {T, 1});
  Array outBias = state.take("out_bias", {1, T, 1});
  Array bias({T});
  for (int64_t i = 0; i < T; ++i)
    bias.values[i] = biasAtom.values[i] + outBias.values[i];
  typedArg("energy_bias", "ebias", bias, to);
  state.refuseExtra();

  auto ty = [&](Dims dims) { return w.tensor(dims); };
  // A tensor type in the outer element type.
  auto tyo = [&](Dims dims) { return w.tensor(dims, to); };
  bool split = to != t;
  std::ostream &os = w.os;
  os << "// Imported from a DeePMD-kit DPA4 checkpoint (docs/import.md):\n"
     << "// C " << C << ", lmax " << L << ", " << c.blocks << " blocks of "
     << c.layers << " SO(2) layers, F " << F << " x Cf " << Cf << ", " << K
     << " radial functions, FFN " << Hf << ", fitting " << Hfit << ", rcut "
     << c.rcut << " A, " << t
     << (split ? " with f64 edge vectors, forces, virial and energy sum" : "")
     << ".\n"
     << "#node = affine_map<(n, d, c) -> (n)>\n"
     << "#nodeRow = affine_map<(n, d, c) -> (n, d, c)>\n"
     << "#edge = affine_map<(e, k) -> (e)>\n"
     << "#edgeRow = affine_map<(e, k) -> (e, k)>\n"
     << "module attributes {sezm.type_map = [";
  for (int64_t i = 0; i < T; ++i)
    os << (i ? ", " : "") << "\"" << c.typeMap[i] << "\"";
  std::string rcutText = floatLiteral(c.rcut);
  os << "], sezm.rcut = " << rcutText << " : f64} {\n"
     << "func.func @energy(\n"
     << "    %pos: " << tyo({-1, 3})
     << " {sezm.name = \"positions\", sezm.extents = [\"N\", \"\"]},\n"
     << "    %shift: " << tyo({-1, 3})
     << " {sezm.name = \"shift\", sezm.extents = [\"E\", \"\"]},\n"
     << "    %src: tensor<?xi64> {sezm.name = \"src\", sezm.extents = "
        "[\"E\"]},\n"
     << "    %dst: tensor<?xi64> {sezm.name = \"dst\", sezm.extents = "
        "[\"E\"]},\n"
     << "    %so: tensor<?xi64> {sezm.name = \"src_order\", sezm.csr_of = "
        "\"src\", sezm.extents = [\"E\"]},\n"
     << "    %sr: tensor<?xi64> {sezm.name = \"src_rowptr\", sezm.csr_of = "
        "\"src\", sezm.extents = [\"N+1\"]},\n"
     << "    %do: tensor<?xi64> {sezm.name = \"dst_order\", sezm.csr_of = "
        "\"dst\", sezm.extents = [\"E\"]},\n"
     << "    %dr: tensor<?xi64> {sezm.name = \"dst_rowptr\", sezm.csr_of = "
        "\"dst\", sezm.extents = [\"N+1\"]},\n"
     << "    %types: tensor<?xi64> {sezm.name = \"types\", sezm.extents = "
        "[\"N\"]}"
     << args.str() << ")\n    -> (tensor<" << to
     << "> {sezm.name = \"energy\"}) {\n"
     << "  %c0 = arith.constant 0 : index\n"
     << "  %cC = arith.constant " << C << " : index\n"
     << "  %zero = arith.constant 0.0 : " << t << "\n"
     << (split ? "  %zeroE = arith.constant 0.0 : " + to + "\n" : "")
     << "  %half = arith.constant 0.5 : " << t << "\n"
     << "  %floor = arith.constant 0.25 : " << t << "\n"
     << "  %n = tensor.dim %pos, %c0 : " << tyo({-1, 3}) << "\n";

  // Node features: the species embedding in the l = 0 row.
  std::string typeRows = c.envSeed ? "x0type" : "x0";
  os << "\n  // x0: the type embedding in the l = 0 row, zero elsewhere.\n"
     << "  %x0E = tensor.empty(%n) : " << ty({-1, D, C}) << "\n"
     << "  %" << typeRows
     << " = linalg.generic {indexing_maps = [#node, #nodeRow], "
        "iterator_types = [\"parallel\", \"parallel\", \"parallel\"]}\n"
     << "      ins(%types : tensor<?xi64>) outs(%x0E : " << ty({-1, D, C})
     << ") {\n"
     << "    ^bb0(%ty: i64, %out: " << t << "):\n"
     << "      %d = linalg.index 1 : index\n"
     << "      %c = linalg.index 2 : index\n"
     << "      %ti = arith.index_cast %ty : i64 to index\n"
     << "      %h = tensor.extract %temb[%ti, %c] : " << ty({T + 1, C}) << "\n"
     << "      %first = arith.cmpi eq, %d, %c0 : index\n"
     << "      %r = arith.select %first, %h, %zero : " << t << "\n"
     << "      linalg.yield %r : " << t << "\n"
     << "  } -> " << ty({-1, D, C}) << "\n";

  // Edge geometry.
  os << "\n  // Edge geometry, shared by the blocks.\n";
  std::string vName = split ? "vOuter" : "v";
  os << "  %" << vName
     << " = sezm.edge_vectors %pos[%src, %dst] shift %shift : (" << tyo({-1, 3})
     << ", tensor<?xi64>, tensor<?xi64>, " << tyo({-1, 3}) << ") -> "
     << tyo({-1, 3}) << "\n";
  if (split)
    os << "  // The network runs in " << t << " from the edge vectors on.\n"
       << "  %v = arith.truncf %vOuter : " << tyo({-1, 3}) << " to "
       << ty({-1, 3}) << "\n";
  os << "  %w = sezm.wigner %v lmax = " << L << " : (" << ty({-1, 3}) << ") -> "
     << ty({-1, D, D}) << "\n"
     << "  %rbf = sezm.radial_basis %v freqs %freqs rcut = " << rcutText
     << " exponent = " << c.rbfExponent << " : (" << ty({-1, 3}) << ", "
     << ty({K}) << ") -> " << ty({-1, K}) << "\n"
     << "  %env = sezm.envelope %v rcut = " << rcutText
     << " exponent = " << c.envExponent << " : (" << ty({-1, 3}) << ") -> "
     << ty({-1}) << "\n"
     << "  %edges = tensor.dim %rbf, %c0 : " << ty({-1, K}) << "\n";

  // Radial features.
  int64_t R = (L + 1) * C;
  os << "\n  // Radial features (E, (L+1) x C): the radial MLP times env, "
        "plus T[t_src] + T[t_dst].\n";
  w.matmul("h0", "edges", "rbf", K, "rw1", c.radialHidden);
  std::string h0 = "h0";
  if (c.edgeNorm) {
    os << "  %h0n = sezm.rms_norm %h0 scale %rns eps = 1.0e-7 : ("
       << ty({-1, c.radialHidden}) << ", " << ty({c.radialHidden}) << ") -> "
       << ty({-1, c.radialHidden}) << "\n";
    h0 = "h0n";
  }
  w.silu("h0act", "edges", h0, c.radialHidden);
  w.matmul("r0", "edges", "h0act", c.radialHidden, "rw2", R);
  // env per edge across the row, as (E, 1) @ ones (1, R): the product has
  // a derivative rule where a row broadcast has none.
  os << "  %env1 = tensor.expand_shape %env [[0, 1]] output_shape [%edges, 1] "
        ": "
     << ty({-1}) << " into " << ty({-1, 1}) << "\n"
     << "  %ones = arith.constant dense<1.0> : " << ty({1, R}) << "\n";
  w.matmul("envB", "edges", "env1", 1, "ones", R);
  os << "  %r1 = arith.mulf %r0, %envB : " << ty({-1, R}) << "\n";
  w.typePairLookup("pair", R, "temb", "temb", T + 1, C, "cC");
  os << "  %rad = arith.addf %r1, %pair : " << ty({-1, R}) << "\n";

  // Degree normalisation.
  os << "\n  // (sum over incoming edges of env^2 + 0.25)^(-1/2).\n"
     << "  %env21 = arith.mulf %env1, %env1 : " << ty({-1, 1}) << "\n"
     << "  %deg = sezm.segment_reduce %env21 over(%do, %dr) : (" << ty({-1, 1})
     << ", tensor<?xi64>, tensor<?xi64>) -> " << ty({-1, 1}) << "\n"
     << "  %floorE = tensor.empty(%n) : " << ty({-1, 1}) << "\n"
     << "  %floors = linalg.fill ins(%floor : " << t
     << ") outs(%floorE : " << ty({-1, 1}) << ") -> " << ty({-1, 1}) << "\n"
     << "  %degf = arith.addf %deg, %floors : " << ty({-1, 1}) << "\n"
     << "  %isd1 = math.rsqrt %degf : " << ty({-1, 1}) << "\n"
     << "  %isd = tensor.collapse_shape %isd1 [[0, 1]] : " << ty({-1, 1})
     << " into " << ty({-1}) << "\n";
  if (c.envSeed)
    writeEnvSeed(w, c, typeRows, filmScale, filmShift);

  std::string nodeType = ty({-1, D, C}), wideType = ty({-1, D, Cw}),
              frameType = ty({-1, Dm, Cw});
  // Block boundaries (sezm.exchange): where a domain decomposition's ghost
  // atoms take their owners' features (sezm-split-stages).
  auto exchange = [&](const std::string &in) {
    os << "  %" << in << "s = sezm.exchange %" << in << " : " << nodeType
       << "\n";
    return in + "s";
  };
  std::string x = exchange("x0");
  std::string focusAttr =
      " lmax = " + std::to_string(L) + " focus = " + std::to_string(F);
  for (int64_t b = 0; b < c.blocks; ++b) {
    std::string v = "b" + std::to_string(b);
    // An equivariant RMS norm of `in`, named %<v><name>: DeePMD-kit's
    // post-SO2 norm has eps 1.0 without edge_norm, the others 1e-5.
    auto norm = [&](int k, const std::string &in, const std::string &name) {
      const char *eps = k == 1 && !c.edgeNorm ? "1.0" : "1.0e-5";
      std::string p = v + "ns" + std::to_string(k);
      os << "  %" << v << name << " = sezm.equivariant_rms_norm %" << in
         << " scale %" << p << "s bias %" << p << "b lmax = " << L
         << " eps = " << eps << " {degree_weights = " << normWeights[b][k]
         << "} : (" << nodeType << ", " << ty({L + 1, C}) << ", " << ty({C})
         << ") -> " << nodeType << "\n";
      return v + name;
    };
    os << "\n  // Block " << b << ": SO(2) convolution, then the FFN.\n";
    std::string so2In = c.sandwich[0] ? norm(0, x, "n0") : x;
    os << "  %" << v << "xw = sezm.degree_linear %" << so2In << " weight %" << v
       << "pre lmax = " << L << " : (" << nodeType << ", " << ty({L + 1, C, Cw})
       << ") -> " << wideType << "\n";
    std::string radw = "rad";
    if (Cw != C) {
      w.matmul(v + "radw", "edges", "rad", R, v + "rhp", (L + 1) * Cw);
      radw = v + "radw";
    }
    w.matmul(v + "kc", "edges", radw, (L + 1) * Cw, v + "mix", KSZ);
    os << "  %" << v << "u0 = sezm.rotate_mix %" << v
       << "xw[%src] by %w kernel %" << v << "kc basis %" << v
       << "cb lmax = " << L << " rank = 1 : (" << wideType
       << ", tensor<?xi64>, " << ty({-1, D, D}) << ", " << ty({-1, KSZ}) << ", "
       << ty({1, Cw}) << ") -> " << frameType << "\n";
    std::string u = v + "u0";
    for (int64_t k = 0; k < c.layers; ++k) {
      std::string lv = v + "l" + std::to_string(k);
      os << "  %" << lv << "z = sezm.so2_linear %" << u << " weights(%" << lv
         << "w0, %" << lv << "wu, %" << lv << "wv)" << focusAttr << " : ("
         << frameType << ", " << ty({F, M0, M0}) << ", " << ty({F, M1, M1})
         << ", " << ty({F, M1, M1}) << ") -> " << frameType << "\n";
      std::string update = lv + "z";
      if (k + 1 < c.layers) {
        os << "  %" << lv << "a = sezm.gate %" << lv << "z weight %" << lv
           << "g" << focusAttr << " : (" << frameType << ", " << ty({F, Cf, M1})
           << ") -> " << frameType << "\n";
        update = lv + "a";
      }
      os << "  %" << lv << "u = arith.addf %" << u << ", %" << update << " : "
         << frameType << "\n";
      u = lv + "u";
    }
    if (F > 1) {
      os << "  %" << v << "alpha = sezm.focus_compete %" << v << "u0 weight %"
         << v << "fc" << (c.edgeNorm ? " norm %" + v + "fcn" : std::string())
         << focusAttr << " : (" << frameType << ", " << ty({Cf, F})
         << (c.edgeNorm ? ", " + ty({F, Cf}) : std::string()) << ") -> "
         << ty({-1, F}) << "\n"
         << "  %" << v << "out = sezm.focus_scale %" << u << " by %" << v
         << "alpha : (" << frameType << ", " << ty({-1, F}) << ") -> "
         << frameType << "\n";
      u = v + "out";
    }
    if (c.heads > 0)
      writeAttention(w, c, v, u, radw);
    else
      os << "  %" << v << "agg = sezm.envelope_aggregate %" << u
         << " by %w env %env norm %isd over(%do, %dr) lmax = " << L << " : ("
         << frameType << ", " << ty({-1, D, D}) << ", " << ty({-1}) << ", "
         << ty({-1}) << ", tensor<?xi64>, tensor<?xi64>) -> " << wideType
         << "\n";
    std::string agg = v + "agg";
    if (c.messageSO3) {
      writeGridNet(w, v + "m", agg, v + "xw", messageNets[b], so3Names, L, D);
      os << "  %" << v << "mc = sezm.degree_linear %" << v << "m weight %" << v
         << "mcw lmax = " << L << " : (" << ty({-1, D, K3 * Cw}) << ", "
         << ty({L + 1, K3 * Cw, Cw}) << ") -> " << wideType << "\n"
         << "  %" << v << "aggm = arith.addf %" << agg << ", %" << v
         << "mc : " << wideType << "\n";
      agg = v + "aggm";
    }
    os << "  %" << v << "so2 = sezm.degree_linear %" << agg << " weight %" << v
       << "post lmax = " << L << " : (" << wideType << ", "
       << ty({L + 1, Cw, C}) << ") -> " << nodeType << "\n";
    std::string so2Out = c.sandwich[1] ? norm(1, v + "so2", "n1") : v + "so2";
    os << "  %" << v << "x1 = arith.addf %" << x << ", %" << so2Out << " : "
       << nodeType << "\n";
    std::string ffnIn = c.sandwich[2] ? norm(2, v + "x1", "n2") : v + "x1";
    if (c.s2Ffn || c.ffnSO3)
      writeGridNet(w, v + "g", ffnIn, ffnIn, ffnNets[b],
                   c.ffnSO3 ? so3Names : s2Names, L, D);
    else
      os << "  %" << v << "h = sezm.degree_linear %" << ffnIn << " weight %"
         << v << "f1 lmax = " << L << " : (" << nodeType << ", "
         << ty({L + 1, C, 2 * Hf}) << ") -> " << ty({-1, D, 2 * Hf}) << "\n"
         << "  %" << v << "g = sezm.glu %" << v << "h weight %" << v
         << "fg lmax = " << L << " : (" << ty({-1, D, 2 * Hf}) << ", "
         << ty({Hf, L * Hf}) << ") -> " << ty({-1, D, Hf}) << "\n";
    const int64_t Kf = c.ffnSO3 ? K3 : 1;
    os << "  %" << v << "ffn = sezm.degree_linear %" << v << "g weight %" << v
       << "f2 lmax = " << L << " : (" << ty({-1, D, Kf * Hf}) << ", "
       << ty({L + 1, Kf * Hf, C}) << ") -> " << nodeType << "\n";
    std::string ffnOut = c.sandwich[3] ? norm(3, v + "ffn", "n3") : v + "ffn";
    os << "  %" << v << "x = arith.addf %" << v << "x1, %" << ffnOut << " : "
       << nodeType << "\n";
    x = exchange(v + "x");
  }

  // Readout and fitting.
  os << "\n  // Readout: y = x0 + FFN0(x0) on the l = 0 row (so3_readout: "
        "row 0 of x + FFN(x)); then the GLU fitting net and the per-type "
        "bias.\n"
     << "  %xf = tensor.collapse_shape %" << x
     << " [[0], [1, 2]] : " << nodeType << " into " << ty({-1, D * C}) << "\n";
  w.matmul("y0", "n", "xf", D * C, select, C);
  if (c.readout == "none") {
    w.matmul("oh", "n", "y0", C, "o1", 2 * Ho);
    os << "  %oh3 = tensor.expand_shape %oh [[0], [1, 2]] output_shape [%n, "
          "1, "
       << 2 * Ho << "] : " << ty({-1, 2 * Ho}) << " into "
       << ty({-1, 1, 2 * Ho}) << "\n"
       << "  %og3 = sezm.glu %oh3 lmax = 0 : (" << ty({-1, 1, 2 * Ho})
       << ") -> " << ty({-1, 1, Ho}) << "\n"
       << "  %og = tensor.collapse_shape %og3 [[0], [1, 2]] : "
       << ty({-1, 1, Ho}) << " into " << ty({-1, Ho}) << "\n";
    w.matmul("oy", "n", "og", Ho, "o2", C);
  } else {
    writeGridNet(w, "og", x, x, readoutNet, so3Names, L, D);
    os << "  %offn = sezm.degree_linear %og weight %o2 lmax = " << L << " : ("
       << ty({-1, D, K3 * Ho}) << ", " << ty({L + 1, K3 * Ho, C}) << ") -> "
       << nodeType << "\n"
       << "  %offnf = tensor.collapse_shape %offn [[0], [1, 2]] : " << nodeType
       << " into " << ty({-1, D * C}) << "\n";
    w.matmul("oy", "n", "offnf", D * C, select, C);
  }
  os << "  %y = arith.addf %y0, %oy : " << ty({-1, C}) << "\n";
  w.matmul("fz", "n", "y", C, "fm", 2 * Hfit);
  os << "  %fbB = linalg.broadcast ins(%fb : " << ty({2 * Hfit})
     << ") outs(%fzE : " << ty({-1, 2 * Hfit}) << ") dimensions = [0]\n"
     << "  %fzb = arith.addf %fz, %fbB : " << ty({-1, 2 * Hfit}) << "\n"
     << "  %fz3 = tensor.expand_shape %fzb [[0], [1, 2]] output_shape [%n, 1, "
     << 2 * Hfit << "] : " << ty({-1, 2 * Hfit}) << " into "
     << ty({-1, 1, 2 * Hfit}) << "\n"
     << "  %fg3 = sezm.glu %fz3 lmax = 0 : (" << ty({-1, 1, 2 * Hfit})
     << ") -> " << ty({-1, 1, Hfit}) << "\n"
     << "  %fg = tensor.collapse_shape %fg3 [[0], [1, 2]] : "
     << ty({-1, 1, Hfit}) << " into " << ty({-1, Hfit}) << "\n";
  w.matmul("en", "n", "fg", Hfit, "fo", 1);
  std::string energies = "en";
  if (split) {
    os << "  // Atomic energies, their biases and their sum in " << to << ".\n"
       << "  %enOuter = arith.extf %en : " << ty({-1, 1}) << " to "
       << tyo({-1, 1}) << "\n";
    energies = "enOuter";
  }
  std::string zeroE = split ? "zeroE" : "zero";
  os << "  %biasE = tensor.empty(%n) : " << tyo({-1, 1}) << "\n"
     << "  %bias = linalg.generic {indexing_maps = [#edge, #edgeRow], "
        "iterator_types = [\"parallel\", \"parallel\"]}\n"
     << "      ins(%types : tensor<?xi64>) outs(%biasE : " << tyo({-1, 1})
     << ") {\n"
     << "    ^bb0(%ty: i64, %out: " << to << "):\n"
     << "      %ti = arith.index_cast %ty : i64 to index\n"
     << "      %r = tensor.extract %ebias[%ti] : " << tyo({T}) << "\n"
     << "      linalg.yield %r : " << to << "\n"
     << "  } -> " << tyo({-1, 1}) << "\n"
     << "  %atom = arith.addf %" << energies << ", %bias : " << tyo({-1, 1})
     << "\n"
     << "  %scalar = tensor.empty() : tensor<" << to << ">\n"
     << "  %acc = linalg.fill ins(%" << zeroE << " : " << to
     << ") outs(%scalar : tensor<" << to << ">) -> tensor<" << to << ">\n"
     << "  %e = linalg.reduce ins(%atom : " << tyo({-1, 1})
     << ") outs(%acc : tensor<" << to << ">) dimensions = [0, 1]\n"
     << "    (%in: " << to << ", %out: " << to << ") {\n"
     << "      %s = arith.addf %in, %out : " << to << "\n"
     << "      linalg.yield %s : " << to << "\n"
     << "    }\n"
     << "  return %e : tensor<" << to << ">\n"
     << "}\n"
     << "} // module\n";
}
} // namespace

bool sezmrt::importDPA4(const TorchCheckpoint &checkpoint,
                        ImportPrecision precision, ImportedModel &out,
                        std::string &error) {
  try {
    const PyObject *model =
        checkpoint.root ? checkpoint.root->get("model") : nullptr;
    const PyObject *extra = model ? model->get("_extra_state") : nullptr;
    const PyObject *params = extra ? extra->get("model_params") : nullptr;
    if (!params || model->kind != Kind::Dict)
      fail("a PyTorch checkpoint without the model_params of a DeePMD-kit "
           "model (model._extra_state.model_params)");
    // Another descriptor is named as such, before any of its keys is.
    const PyObject *descriptor = params->get("descriptor");
    const PyObject *type = descriptor ? descriptor->get("type") : nullptr;
    std::string name =
        type && type->kind == Kind::String ? type->text : std::string("?");
    if (name != "dpa4")
      fail("a DeePMD-kit checkpoint of descriptor '" + name +
           "', which sezm does not import (only dpa4, DPA4/SeZM)");
    Config config = readConfig(params);
    bool f64 =
        precision == ImportPrecision::Float64 ||
        (precision == ImportPrecision::Model && config.precision == "float64");
    // The model's own float32 is DeePMD-kit's split: fp64 geometry, forces,
    // virial and energy sum around the fp32 network.
    bool split = !f64 && precision == ImportPrecision::Model;
    Writer writer(f64 ? "f64" : "f32", f64 || split ? "f64" : "f32");
    Weights weights;
    StateDict state(checkpoint, model);
    writeModule(config, state, writer, weights);
    out.moduleText = writer.os.str();
    out.weights = std::move(weights.tensors);
    out.precision = f64 ? "float64"
                        : (split ? "float32 with float64 edge vectors, forces, "
                                   "virial and energy sum"
                                 : "float32");
    std::string species;
    for (const std::string &name : config.typeMap)
      species += (species.empty() ? "" : ", ") + name;
    out.summary = "DPA4 (C " + std::to_string(config.channels) + ", lmax " +
                  std::to_string(config.lmax) + ", " +
                  std::to_string(config.blocks) +
                  (config.blocks == 1 ? " block" : " blocks") + ", type_map " +
                  species + ") imported in " + out.precision;
    return true;
  } catch (const ImportError &e) {
    error = e.message;
    return false;
  }
}

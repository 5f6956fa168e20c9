//===- CApi.cpp - The C API over systole::rt ------------------------------===//
#include "systole/Runtime/Analysis.h"
#include "systole/Runtime/systole_runtime.h"

#include "systole/Runtime/Report.h"
#include "systole/Runtime/Runtime.h"

#include <cstring>
#include <string>

using namespace systole;

struct systole_model {
  std::unique_ptr<rt::Model> model;
};
struct systole_session {
  const systole_model *owner;
  std::unique_ptr<rt::Session> session;
  rt::SessionOptions options;
  std::string reportJson;
};

static thread_local std::string lastError;

static int fail(std::string msg) {
  lastError = std::move(msg);
  return 1;
}
static int fail(llvm::Error e) { return fail(llvm::toString(std::move(e))); }

extern "C" {

const char *systole_last_error(void) { return lastError.c_str(); }

int systole_model_load(const char *path, const systole_limits *limits,
                       systole_model **out) {
  if (!path || !out)
    return fail("systole_model_load: null argument");
  rt::Limits l;
  if (limits) {
    l.maxFileBytes = limits->max_file_bytes;
    l.maxDramBytes = limits->max_dram_bytes;
    l.maxTensorBytes = limits->max_tensor_bytes;
    l.maxInstructions = limits->max_instructions;
    l.maxSramBytes = limits->max_sram_bytes;
    l.allowNativeHostCode = limits->allow_native_host_code != 0;
  }
  auto m = rt::Model::loadFile(path, l);
  if (!m)
    return fail(m.takeError());
  *out = new systole_model{std::move(*m)};
  return 0;
}

void systole_model_free(systole_model *model) { delete model; }

size_t systole_model_num_inputs(const systole_model *m) {
  return m ? m->model->inputs().size() : 0;
}
size_t systole_model_num_outputs(const systole_model *m) {
  return m ? m->model->outputs().size() : 0;
}

static int info(const std::vector<rt::TensorInfo> &v, size_t i,
                systole_tensor_info *out) {
  if (!out || i >= v.size())
    return fail("tensor index " + std::to_string(i) + " out of range");
  out->name = v[i].name.c_str();
  out->dtype = systole_dtype(v[i].dtype);
  out->rank = v[i].shape.size();
  out->shape = v[i].shape.data();
  out->size_bytes = v[i].sizeBytes;
  return 0;
}

int systole_model_input(const systole_model *m, size_t i,
                        systole_tensor_info *out) {
  return m ? info(m->model->inputs(), i, out) : fail("null model");
}
int systole_model_output(const systole_model *m, size_t i,
                         systole_tensor_info *out) {
  return m ? info(m->model->outputs(), i, out) : fail("null model");
}

int systole_session_create(const systole_model *m, systole_backend backend,
                           systole_session **out) {
  if (!m || !out)
    return fail("systole_session_create: null argument");
  if (backend != SYSTOLE_BACKEND_FUNCTIONAL && backend != SYSTOLE_BACKEND_CYCLE)
    return fail("unknown backend " + std::to_string(int(backend)));
  auto *s = new systole_session{m, nullptr, {}, {}};
  s->options.backend = backend == SYSTOLE_BACKEND_CYCLE
                           ? sim::BackendKind::Cycle
                           : sim::BackendKind::Functional;
  s->session = std::make_unique<rt::Session>(*m->model, s->options);
  *out = s;
  return 0;
}

void systole_session_free(systole_session *s) { delete s; }

int systole_session_set_input(systole_session *s, const char *name,
                              systole_dtype dtype, const int64_t *shape,
                              size_t rank, const void *data, size_t bytes) {
  if (!s || !name || (!shape && rank) || (!data && bytes))
    return fail("systole_session_set_input: null argument");
  if (unsigned(dtype) > 3)
    return fail("unknown dtype " + std::to_string(int(dtype)));
  std::vector<int64_t> dims(shape, shape + rank);
  int64_t n = checkedNumElements(dims);
  ElementType et = rt::elementTypeOf(isa::DType(dtype));
  if (n < 0 || uint64_t(n) * elementSize(et) != bytes)
    return fail(std::string("input '") + name + "': " + std::to_string(bytes) +
                " bytes do not match the given shape and dtype");
  HostTensor t(et, dims);
  std::memcpy(t.data(), data, bytes);
  if (auto e = s->session->setInput(name, t))
    return fail(std::move(e));
  return 0;
}

int systole_session_set_max_cycles(systole_session *s, uint64_t maxCycles) {
  if (!s)
    return fail("null session");
  // Options are fixed at construction; rebuild keeping bound inputs is not
  // needed for the C API: set before binding inputs.
  s->options.sim.maxCycles = maxCycles;
  s->session = std::make_unique<rt::Session>(*s->owner->model, s->options);
  return 0;
}

int systole_session_run(systole_session *s) {
  if (!s)
    return fail("null session");
  llvm::Error e = s->session->run();
  s->reportJson.clear();
  if (e)
    return fail(std::move(e));
  return 0;
}

int systole_session_get_output(systole_session *s, const char *name, void *data,
                               size_t capacity) {
  if (!s || !name)
    return fail("systole_session_get_output: null argument");
  auto t = s->session->output(name);
  if (!t)
    return fail(t.takeError());
  if (capacity < t->byteSize())
    return fail(std::string("output '") + name + "' needs " +
                std::to_string(t->byteSize()) + " bytes, buffer has " +
                std::to_string(capacity));
  std::memcpy(data, t->data(), t->byteSize());
  return 0;
}

int systole_session_stats(const systole_session *s, systole_stats *out) {
  if (!s || !out)
    return fail("systole_session_stats: null argument");
  const rt::RunReport &r = s->session->report();
  const isa::HwConfig &cfg = s->owner->model->config();
  const sim::RunStats &t = r.total;
  *out = systole_stats{};
  out->total_cycles = r.backend == sim::BackendKind::Cycle ? t.totalCycles : 0;
  out->instructions = t.instructionsRetired;
  out->macs = t.actions.macs;
  out->peak_macs = t.peakMacs(cfg);
  out->dram_read_bytes = t.actions.dramReadBytes;
  out->dram_write_bytes = t.actions.dramWriteBytes;
  out->sp_read_bytes = t.actions.spReadBytes;
  out->sp_write_bytes = t.actions.spWriteBytes;
  out->acc_read_words = t.actions.accReadWords;
  out->acc_write_words = t.actions.accWriteWords;
  out->energy_pj = rt::energyOf(t.actions, t.totalCycles, cfg).total();
  out->wall_seconds = r.wallSeconds;
  return 0;
}

const char *systole_session_report_json(systole_session *s) {
  if (!s)
    return nullptr;
  if (s->reportJson.empty()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << rt::reportToJson(s->session->report(), *s->owner->model);
    s->reportJson = std::move(os.str());
  }
  return s->reportJson.c_str();
}

} // extern "C"

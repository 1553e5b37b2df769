/* test_exec_backend.c: the nvml backend against the fake NVML (placement rules, overlap,
 * persistence across opens, model checks, missing library and symbol, the GPU's minor
 * number and PCI bus id) and the sim backend. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "migsched/exec.h"
#include "exec_plans.h"
#include "support.h"
#include "../src/exec/nvml_types.h"

#define FAKE_LIB     MIGSCHED_BINARY_DIR "/tests/fake_nvml/libnvidia-ml.so.1"
#define FAKE_OLD_LIB MIGSCHED_BINARY_DIR "/tests/fake_nvml/old/libnvidia-ml.so.1"

static char *state_path;

/* Every test gets its own emulated GPU: a fresh state file, no delays, no faults. */
static int setup(void **unused)
{
    state_path = fake_nvml_begin("A100-40GB", 1);
    return 0;
}

static int teardown(void **unused)
{
    fake_nvml_end(state_path);
    return 0;
}

static ms_placement at(const ms_gpu_model *m, const char *profile, int start)
{
    int p = ms_gpu_profile_by_name(m, profile);
    assert_true(p >= 0);
    return (ms_placement){p, start};
}

static void test_identify_create_list_destroy(void **unused)
{
    ms_backend *b = fake_nvml_open(FAKE_LIB, NULL);
    const ms_gpu_model *m = ms_backend_model(b);
    assert_string_equal(m->name, "A100-40GB");
    ms_error err;
    ms_mig_instance a, c, list[MS_MAX_MIG];
    int n = -1;
    assert_int_equal(ms_backend_list(b, list, &n, &err), MS_OK);
    assert_int_equal(n, 0);
    assert_int_equal(ms_backend_create(b, at(m, "3g.20gb", 4), &a, &err), MS_OK);
    assert_int_equal(ms_backend_create(b, at(m, "2g.10gb", 0), &c, &err), MS_OK);
    assert_int_equal(a.start_slot, 4);
    assert_int_equal(a.size_slots, 4);
    assert_int_equal(a.nci, 1);
    assert_true(!strncmp(a.uuid, "MIG-", 4));
    assert_string_not_equal(a.uuid, c.uuid);
    assert_int_equal(ms_backend_list(b, list, &n, &err), MS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(list[0].start_slot, 0); /* sorted by slot */
    assert_int_equal(list[0].gi_id, c.gi_id);
    assert_string_equal(list[1].uuid, a.uuid);
    /* 4g.20gb covers slots 0-3, where the 2g instance sits. */
    ms_mig_instance d;
    assert_int_equal(ms_backend_create(b, at(m, "4g.20gb", 0), &d, &err), MS_EBACKEND);
    assert_non_null(strstr(err.msg, "Insufficient Resources"));
    assert_non_null(strstr(err.msg, "nvmlDeviceCreateGpuInstanceWithPlacement"));
    /* Not an allowed placement: refused before NVML is asked. */
    assert_int_equal(ms_backend_create(b, at(m, "3g.20gb", 2), &d, &err), MS_EINVAL);
    assert_int_equal(ms_backend_destroy(b, a.gi_id, &err), MS_OK);
    assert_int_equal(ms_backend_destroy(b, c.gi_id, &err), MS_OK);
    assert_int_equal(ms_backend_destroy(b, c.gi_id, &err), MS_EBACKEND);
    assert_non_null(strstr(err.msg, "Not Found"));
    assert_int_equal(ms_backend_list(b, list, &n, &err), MS_OK);
    assert_int_equal(n, 0);
    ms_backend_close(b);
}

static void test_state_persists_across_opens(void **unused)
{
    setenv("FAKE_NVML_GPU", "A30-24GB", 1);
    ms_backend *b = fake_nvml_open(FAKE_LIB, ms_gpu_builtin("A30-24GB"));
    ms_error err;
    ms_mig_instance a, list[MS_MAX_MIG];
    assert_int_equal(ms_backend_create(b, at(ms_backend_model(b), "2g.12gb", 2), &a, &err), MS_OK);
    ms_backend_close(b);
    b = fake_nvml_open(FAKE_LIB, NULL);
    int n = 0;
    assert_int_equal(ms_backend_list(b, list, &n, &err), MS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(list[0].gi_id, a.gi_id);
    assert_string_equal(list[0].uuid, a.uuid);
    assert_string_equal(ms_backend_model(b)->profiles[list[0].profile].name, "2g.12gb");
    assert_int_equal(ms_backend_destroy(b, a.gi_id, &err), MS_OK);
    ms_backend_close(b);
}

static void test_wrong_model_and_device(void **unused)
{
    setenv("FAKE_NVML_GPU", "A30-24GB", 1);
    ms_backend_options opt = {.nvml_library = FAKE_LIB};
    ms_backend *b = NULL;
    ms_error err;
    assert_int_equal(ms_backend_open("nvml", 0, ms_gpu_builtin("A100-40GB"), &opt, &b, &err),
                     MS_EINVAL);
    assert_non_null(strstr(err.msg, "not a A100-40GB"));
    assert_int_equal(ms_backend_open("nvml", 3, NULL, &opt, &b, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "device 3 does not exist"));
    assert_int_equal(ms_backend_open("cuda", 0, NULL, &opt, &b, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "unknown backend"));
}

static void test_missing_library_and_symbol(void **unused)
{
    ms_backend_options opt = {.nvml_library = "/nonexistent/libnvidia-ml.so.1"};
    ms_backend *b = NULL;
    ms_error err;
    assert_int_equal(ms_backend_open("nvml", 0, NULL, &opt, &b, &err), MS_EBACKEND);
    assert_non_null(strstr(err.msg, "cannot load NVML"));
    /* An NVML without ...WithPlacement opens fine; creating says what is missing. */
    b = fake_nvml_open(FAKE_OLD_LIB, NULL);
    ms_mig_instance a;
    assert_int_equal(ms_backend_create(b, at(ms_backend_model(b), "1g.5gb", 3), &a, &err),
                     MS_EBACKEND);
    assert_non_null(strstr(err.msg, "does not export nvmlDeviceCreateGpuInstanceWithPlacement"));
    ms_backend_close(b);
}

static void test_mig_mode(void **unused)
{
    setenv("FAKE_NVML_MIG", "0", 1);
    ms_backend *b = fake_nvml_open(FAKE_LIB, NULL);
    bool on = true;
    ms_error err;
    assert_int_equal(ms_backend_mig_mode(b, &on, &err), MS_OK);
    assert_false(on);
    ms_mig_instance a;
    assert_int_equal(ms_backend_create(b, at(ms_backend_model(b), "7g.40gb", 0), &a, &err),
                     MS_EBACKEND);
    assert_non_null(strstr(err.msg, "Not Supported"));
    assert_int_equal(ms_backend_enable_mig(b, &err), MS_OK);
    assert_int_equal(ms_backend_mig_mode(b, &on, &err), MS_OK);
    assert_true(on);
    ms_backend_close(b);
}

/* Busy instances: the processes the fake lists for a GPU instance ("proc" records), each
 * PID once and sorted, none on an idle one; NVML refuses to destroy a busy one; MIG mode
 * cannot be disabled while instances exist, and can once they are gone. */
static void test_processes_and_disable(void **unused)
{
    ms_backend *b = fake_nvml_open(FAKE_LIB, NULL);
    const ms_gpu_model *m = ms_backend_model(b);
    ms_error err;
    ms_mig_instance busy, idle;
    assert_int_equal(ms_backend_create(b, at(m, "3g.20gb", 4), &busy, &err), MS_OK);
    assert_int_equal(ms_backend_create(b, at(m, "2g.10gb", 0), &idle, &err), MS_OK);
    FILE *f = fopen(state_path, "a");
    fprintf(f, "proc 0 %u 900\nproc 0 %u 12\nproc 0 %u 900\n", busy.gi_id, busy.gi_id, busy.gi_id);
    fclose(f);
    unsigned pids[MS_MAX_PIDS];
    int n = -1;
    assert_int_equal(ms_backend_processes(b, busy.gi_id, pids, MS_MAX_PIDS, &n, &err), MS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(pids[0], 12);
    assert_int_equal(pids[1], 900);
    assert_int_equal(ms_backend_processes(b, idle.gi_id, pids, MS_MAX_PIDS, &n, &err), MS_OK);
    assert_int_equal(n, 0);
    assert_int_equal(ms_backend_destroy(b, busy.gi_id, &err), MS_EBACKEND);
    assert_non_null(strstr(err.msg, "In use"));
    assert_int_equal(ms_backend_disable_mig(b, &err), MS_EBACKEND);
    assert_int_equal(ms_backend_destroy(b, idle.gi_id, &err), MS_OK);
    /* The processes end: the instance can go, and then MIG mode. */
    FILE *g = fopen(state_path, "w");
    fclose(g);
    assert_int_equal(ms_backend_disable_mig(b, &err), MS_OK);
    bool on = true;
    assert_int_equal(ms_backend_mig_mode(b, &on, &err), MS_OK);
    assert_false(on);
    int count = 0;
    ms_backend_options opt = {.nvml_library = FAKE_LIB};
    assert_int_equal(ms_backend_device_count("nvml", &opt, &count, &err), MS_OK);
    assert_int_equal(count, 1);
    ms_backend_close(b);
}

/* A failure after the GPU instance exists must not leave it behind. */
static void test_create_failure_cleans_up(void **unused)
{
    setenv("FAKE_NVML_FAIL", "nvmlGpuInstanceCreateComputeInstance:1:23", 1);
    ms_backend *b = fake_nvml_open(FAKE_LIB, NULL);
    ms_error err;
    ms_mig_instance a, list[MS_MAX_MIG];
    assert_int_equal(ms_backend_create(b, at(ms_backend_model(b), "1g.5gb", 6), &a, &err),
                     MS_EBACKEND);
    assert_non_null(strstr(err.msg, "nvmlGpuInstanceCreateComputeInstance"));
    assert_non_null(strstr(err.msg, "Insufficient Resources"));
    int n = -1;
    assert_int_equal(ms_backend_list(b, list, &n, &err), MS_OK);
    assert_int_equal(n, 0);
    ms_backend_close(b);
}

/* The GPU's minor number (its /dev/nvidia<minor>), not its index; a failure to read it
 * fails only the asking for it. The sim backend's is the device index. */
static void test_minor_number(void **unused)
{
    setenv("FAKE_NVML_GPUS", "2", 1);
    setenv("FAKE_NVML_MINOR_BASE", "5", 1);
    ms_backend_options opt = {.nvml_library = FAKE_LIB};
    ms_backend *b = NULL;
    ms_error err;
    unsigned minor = 0;
    assert_int_equal(ms_backend_open("nvml", 1, NULL, &opt, &b, &err), MS_OK);
    assert_int_equal(ms_backend_gpu_minor(b, &minor, &err), MS_OK);
    assert_int_equal(minor, 6);
    ms_backend_close(b);
    setenv("FAKE_NVML_FAIL", "nvmlDeviceGetMinorNumber:1", 1);
    b = fake_nvml_open(FAKE_LIB, NULL);
    assert_int_equal(ms_backend_gpu_minor(b, &minor, &err), MS_EBACKEND);
    assert_non_null(strstr(err.msg, "device 0: reading the GPU's minor number: "
                                    "nvmlDeviceGetMinorNumber failed: Unknown Error"));
    ms_backend_close(b);
    assert_int_equal(ms_backend_open("sim", 3, ms_gpu_builtin("A30-24GB"), NULL, &b, &err), MS_OK);
    assert_int_equal(ms_backend_gpu_minor(b, &minor, &err), MS_OK);
    assert_int_equal(minor, 3);
    ms_backend_close(b);
}

/* The GPU's PCI bus id in NVML's spelling, per device; a failure of
 * nvmlDeviceGetPciInfo_v3 is an error naming it. The sim backend makes one up per index. */
static void test_pci_bus_id(void **unused)
{
    setenv("FAKE_NVML_GPUS", "2", 1);
    ms_backend_options opt = {.nvml_library = FAKE_LIB};
    ms_backend *b = NULL;
    ms_error err;
    char id[MS_PCI_BUS_ID_LEN];
    assert_int_equal(ms_backend_open("nvml", 1, NULL, &opt, &b, &err), MS_OK);
    assert_int_equal(ms_backend_gpu_pci_bus_id(b, id, &err), MS_OK);
    assert_string_equal(id, "00000000:11:00.0");
    setenv("FAKE_NVML_FAIL", "nvmlDeviceGetPciInfo_v3:1", 1);
    assert_int_equal(ms_backend_gpu_pci_bus_id(b, id, &err), MS_EBACKEND);
    assert_non_null(strstr(err.msg, "device 1: reading the GPU's PCI bus id: "
                                    "nvmlDeviceGetPciInfo_v3 failed: Unknown Error"));
    ms_backend_close(b);
    unsetenv("FAKE_NVML_FAIL");
    assert_int_equal(ms_backend_open("sim", 2, ms_gpu_builtin("A30-24GB"), NULL, &b, &err), MS_OK);
    assert_int_equal(ms_backend_gpu_pci_bus_id(b, id, &err), MS_OK);
    assert_string_equal(id, "00000000:03:00.0");
    ms_backend_close(b);
}

/* The fake's own rules, called directly: placements, IN_USE, overlap. */
static void test_fake_rules(void **unused)
{
    void *lib = dlopen(FAKE_LIB, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(lib);
    nvmlReturn_t (*init)(void) = (nvmlReturn_t(*)(void))dlsym(lib, "nvmlInit_v2");
    nvmlReturn_t (*shutdown)(void) = (nvmlReturn_t(*)(void))dlsym(lib, "nvmlShutdown");
    nvmlReturn_t (*handle)(unsigned, nvmlDevice_t *) = (nvmlReturn_t(*)(
        unsigned, nvmlDevice_t *))dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    nvmlReturn_t (*create)(nvmlDevice_t, unsigned, const nvmlGpuInstancePlacement_t *,
                           nvmlGpuInstance_t *) =
        (nvmlReturn_t(*)(nvmlDevice_t, unsigned, const nvmlGpuInstancePlacement_t *,
                         nvmlGpuInstance_t *))dlsym(lib,
                                                    "nvmlDeviceCreateGpuInstanceWithPlacement");
    nvmlReturn_t (*mkci)(nvmlGpuInstance_t, unsigned, nvmlComputeInstance_t *) = (nvmlReturn_t(*)(
        nvmlGpuInstance_t, unsigned,
        nvmlComputeInstance_t *))dlsym(lib, "nvmlGpuInstanceCreateComputeInstance");
    nvmlReturn_t (*gi_destroy)(nvmlGpuInstance_t) = (nvmlReturn_t(*)(nvmlGpuInstance_t))dlsym(
        lib, "nvmlGpuInstanceDestroy");
    nvmlReturn_t (*ci_destroy)(nvmlComputeInstance_t) = (nvmlReturn_t(*)(
        nvmlComputeInstance_t))dlsym(lib, "nvmlComputeInstanceDestroy");
    assert_non_null(create);
    assert_int_equal(handle(0, NULL), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(init(), NVML_SUCCESS);
    nvmlDevice_t dev;
    assert_int_equal(handle(0, &dev), NVML_SUCCESS);
    nvmlGpuInstance_t gi, other;
    nvmlComputeInstance_t ci;
    /* A100: 3g.20gb is profile id 9, placements {0,4} of size 4. */
    assert_int_equal(create(dev, 9, &(nvmlGpuInstancePlacement_t){2, 4}, &gi),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(create(dev, 2, &(nvmlGpuInstancePlacement_t){0, 4}, &gi),
                     NVML_ERROR_INVALID_ARGUMENT); /* 2 is an index, not an id */
    assert_int_equal(create(dev, 9, &(nvmlGpuInstancePlacement_t){0, 4}, &gi), NVML_SUCCESS);
    assert_int_equal(create(dev, 19, &(nvmlGpuInstancePlacement_t){3, 1}, &other),
                     NVML_ERROR_INSUFFICIENT_RESOURCES);
    assert_int_equal(mkci(gi, 2, &ci), NVML_SUCCESS);
    assert_int_equal(mkci(gi, 0, &ci), NVML_ERROR_INSUFFICIENT_RESOURCES); /* GI is full */
    assert_int_equal(gi_destroy(gi), NVML_ERROR_IN_USE);
    assert_int_equal(ci_destroy(ci), NVML_SUCCESS);
    assert_int_equal(gi_destroy(gi), NVML_SUCCESS);
    assert_int_equal(shutdown(), NVML_SUCCESS);
    dlclose(lib);
}

static void test_sim_backend(void **unused)
{
    const ms_gpu_model *m = ms_gpu_builtin("A30-24GB");
    int stale; /* a failure leaves NULL, never what *out held before */
    ms_backend *b = (ms_backend *)&stale;
    ms_error err;
    assert_int_equal(ms_backend_open("sim", 0, NULL, NULL, &b, &err), MS_EINVAL);
    assert_null(b);
    b = (ms_backend *)&stale;
    assert_int_equal(ms_backend_open("nosuch", 0, m, NULL, &b, &err), MS_EINVAL);
    assert_null(b);
    assert_int_equal(ms_backend_open("sim", 0, m, NULL, &b, &err), MS_OK);
    ms_mig_instance a, c, list[MS_MAX_MIG];
    assert_int_equal(ms_backend_create(b, at(m, "2g.12gb", 2), &a, &err), MS_OK);
    assert_int_equal(ms_backend_create(b, at(m, "1g.6gb", 3), &c, &err), MS_EBACKEND);
    assert_int_equal(ms_backend_create(b, at(m, "1g.6gb", 1), &c, &err), MS_OK);
    int n = 0;
    assert_int_equal(ms_backend_list(b, list, &n, &err), MS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(list[0].start_slot, 1);
    assert_int_equal(ms_backend_destroy(b, a.gi_id, &err), MS_OK);
    assert_int_equal(ms_backend_destroy(b, c.gi_id, &err), MS_OK);
    assert_int_equal(ms_backend_list(b, list, &n, &err), MS_OK);
    assert_int_equal(n, 0);
    unsigned pids[MS_MAX_PIDS];
    assert_int_equal(ms_backend_processes(b, a.gi_id, pids, MS_MAX_PIDS, &n, &err), MS_OK);
    assert_int_equal(n, 0);
    ms_backend_close(b);
}

static void test_device_names(void **unused)
{
    assert_string_equal(ms_gpu_model_from_device_name("NVIDIA A100-SXM4-80GB")->name, "A100-80GB");
    assert_string_equal(ms_gpu_model_from_device_name("NVIDIA A100-PCIE-40GB")->name, "A100-40GB");
    assert_string_equal(ms_gpu_model_from_device_name("NVIDIA A30")->name, "A30-24GB");
    assert_string_equal(ms_gpu_model_from_device_name("NVIDIA H100 80GB HBM3")->name, "H100-80GB");
    assert_string_equal(ms_gpu_model_from_device_name("NVIDIA H200-141GB")->name, "H200-141GB");
    assert_null(ms_gpu_model_from_device_name("NVIDIA GeForce RTX 4090"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_identify_create_list_destroy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_state_persists_across_opens, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_model_and_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_library_and_symbol, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mig_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_processes_and_disable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_failure_cleans_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fake_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_minor_number, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pci_bus_id, setup, teardown),
        cmocka_unit_test(test_sim_backend),
        cmocka_unit_test(test_device_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

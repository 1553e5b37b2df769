# Top-level entry points: deps, build, run, test, bench, asan, fuzz.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
SAMPLE     ?= data/rodinia_a30_8tasks.csv
FUZZ_SECONDS ?= 20

PREFIX     ?= /usr/local

DEB_PACKAGES = cmake pkg-config gcc libglpk-dev libopenblas-dev libjansson-dev \
               libmicrohttpd-dev libsqlite3-dev libcmocka-dev libyaml-dev clang libclang-rt-14-dev \
               libcurl4-openssl-dev curl sqlite3 jq prometheus \
               libslurm-dev slurmctld slurmd slurm-client munge iproute2 \
               slurmdbd mariadb-server
# What `make deb` builds the Debian packages with (debian/; the Python package with pybuild).
DEB_BUILD_PACKAGES = build-essential debhelper lintian fakeroot dpkg-dev \
                     dh-python pybuild-plugin-pyproject python3-all python3-setuptools
# Only tests need these, and chromium is large: installed by `make test` (deps-test).
# chromium renders the status page; clang-format checks the code's format; the package
# test (deb_package) builds the packages, reads the manual pages with man and installs
# migsched, which needs adduser.
TEST_DEB_PACKAGES = chromium clang-format $(DEB_BUILD_PACKAGES) man-db adduser \
                    $(PY_DEB_PACKAGES) python3-pytest python3-pip python3-setuptools python3-wheel
DEB_DIR    ?= $(BUILD)/deb
# The Python package (python/) runs on Debian's python3 with these.
PY_DEB_PACKAGES = python3 python3-cffi python3-numpy

.PHONY: all deps deps-test apt-install build install deb python run test test-long bench asan fuzz clean check-render

all: build

# Installs only the Debian packages that are missing (needs root or sudo).
deps:
	@$(MAKE) --no-print-directory apt-install PKGS="$(DEB_PACKAGES)"

deps-test:
	@$(MAKE) --no-print-directory apt-install PKGS="$(TEST_DEB_PACKAGES)"

apt-install:
	@missing=""; for p in $(PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The Python package importable from the checkout (PYTHONPATH=python) and installable with
# pip install --no-build-isolation ./python: libmigsched.so.0 built and put beside it.
python: deps build
	@$(MAKE) --no-print-directory apt-install PKGS="$(PY_DEB_PACKAGES)"
	cp -L $(BUILD)/libmigsched.so.0 python/migsched/libmigsched.so.0

run: deps build
	./$(BUILD)/migsched schedule $(SAMPLE) --gpu A30-24GB --algo search --tree
	./$(BUILD)/migsched compare $(SAMPLE) --gpu A30-24GB

# migsched, migschedd, the systemd unit, an example configuration, the manual pages,
# libmigsched.so.0 (and the libmigsched.so link), libmigsched.a, the headers and migsched.pc,
# and (with libslurm-dev) the SPANK plugin
# PREFIX/lib/slurm/migsched_spank.so under PREFIX. As root (no DESTDIR), ldconfig then
# caches the library, so that programs and the Python package find libmigsched.so.0.
install: $(BUILD)/CMakeCache.txt
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX)
	cmake --build $(BUILD) -j $(JOBS)
	cmake --install $(BUILD)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

# The Debian packages migsched, libmigsched0, libmigsched-dev (VERSION_ARCH.deb) and
# python3-migsched (VERSION_all.deb) in DEB_DIR (debian/; dist/build-deb.sh builds them
# from a copy of the tree, nocheck, on 2 jobs, and fails on any lintian error or warning).
deb:
	@$(MAKE) --no-print-directory apt-install PKGS="$(DEB_PACKAGES) $(DEB_BUILD_PACKAGES)"
	bash dist/build-deb.sh $(DEB_DIR)

test: deps deps-test build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Property runs too long for every `make test`: the learned scheduler's plans on 10,000
# random queues of 1-60 tasks per shipped policy (ctest runs 60).
test-long: deps build
	MS_RL_QUEUES=10000 ./$(BUILD)/tests/test_rl_queue

bench: deps build
	@$(MAKE) --no-print-directory apt-install PKGS="$(PY_DEB_PACKAGES)"
	cmake --build $(BUILD) -j $(JOBS) --target benches
	@for b in $(BUILD)/bench/bench_*; do [ -x $$b ] && $$b; done
	PYTHONPATH=python MIGSCHED_LIBRARY=$(BUILD)/libmigsched.so.0 /usr/bin/python3 bench/python_env.py
	@BUILD=$(abspath $(BUILD)) bash bench/cluster_compare.sh

asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMIGSCHED_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)

fuzz: deps
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMIGSCHED_FUZZ=ON
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzzers
	@for f in $(FUZZ_BUILD)/tests/fuzz/fuzz_*; do \
	  [ -x $$f ] || continue; name=$$(basename $$f); mkdir -p fuzz-corpus/$$name; \
	  echo "== $$name ($(FUZZ_SECONDS) s)"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 fuzz-corpus/$$name tests/fuzz/seeds/$$name || exit 1; \
	done

# Renders the sample's schedule plots in headless Chromium to PNG for a look
# (installs Debian's chromium when missing, as `make test` does).
RENDER_DIR ?= $(BUILD)/render
check-render: deps-test build
	rm -rf $(RENDER_DIR) && mkdir -p $(RENDER_DIR)
	./$(BUILD)/migsched compare $(SAMPLE) --gpu A30-24GB --algos far,miso,fixpartbest,nomig --plot-dir $(RENDER_DIR)
	@for h in $(RENDER_DIR)/*.html; do \
	  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,330 \
	    --screenshot="$${h%.html}.png" "file://$$(realpath $$h)" >/dev/null 2>&1 || exit 1; \
	  test -s "$${h%.html}.png" || { echo "no PNG for $$h"; exit 1; }; echo "rendered $${h%.html}.png"; \
	done

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)

# PayPulse Gmail Connect. `make demo` runs the main job on the embedded store;
# `make test` runs every test (against a moto_server it starts on 127.0.0.1).
# Both install what a fresh machine lacks (libcurl/SQLite headers via apt, moto via pip).

SWIFT ?= swift
STATE_DIR ?= .paypulse

.PHONY: demo test soak build deps clean

demo: deps
	$(SWIFT) build --product paypulse
	PAYPULSE_STATE_DIR=$(STATE_DIR) .build/debug/paypulse demo

test:
	scripts/ensure-deps.sh --with-moto
	scripts/build-checked.sh
	scripts/with-moto.sh $(SWIFT) test --skip-build

# The concurrency soak alone, briefly (make test runs it for 60 s per backend).
soak:
	scripts/ensure-deps.sh --with-moto
	scripts/build-checked.sh
	PAYPULSE_SOAK_SECONDS=$${PAYPULSE_SOAK_SECONDS:-10} $(SWIFT) test --skip-build --filter SoakTests

build: deps
	$(SWIFT) build

deps:
	scripts/ensure-deps.sh

clean:
	rm -rf .build $(STATE_DIR)

# PayPulse Gmail Connect. `make demo` runs the main job on the embedded store;
# `make test` runs every test (against a moto_server it starts on 127.0.0.1).
# Both install what a fresh machine lacks (libcurl/SQLite headers via apt, moto via pip).
# `make fuzz` runs each libFuzzer target for FUZZ_SECONDS from its committed seeds.

SWIFT ?= swift
STATE_DIR ?= .paypulse
FUZZ_SECONDS ?= 60

.PHONY: demo test fuzz build deps clean

demo: deps
	$(SWIFT) build --product paypulse
	PAYPULSE_STATE_DIR=$(STATE_DIR) .build/debug/paypulse demo

test:
	scripts/ensure-deps.sh --with-moto
	scripts/build-checked.sh
	scripts/with-moto.sh $(SWIFT) test --skip-build

fuzz:
	scripts/fuzz.sh $(FUZZ_SECONDS)

build: deps
	$(SWIFT) build

deps:
	scripts/ensure-deps.sh

clean:
	rm -rf .build .build-fuzz $(STATE_DIR)

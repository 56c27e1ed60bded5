# PayPulse Gmail Connect. `make demo` runs the main job on the embedded store;
# `make test` runs every test (against a moto_server it starts on 127.0.0.1).
# Both install what a fresh machine lacks (libcurl/SQLite headers via apt, moto via pip).

SWIFT ?= swift
STATE_DIR ?= .paypulse

.PHONY: demo test build deps clean bench bench-quick

demo: deps
	$(SWIFT) build --product paypulse
	PAYPULSE_STATE_DIR=$(STATE_DIR) .build/debug/paypulse demo

test:
	scripts/ensure-deps.sh --with-moto
	scripts/build-checked.sh
	scripts/with-moto.sh $(SWIFT) test --skip-build

build: deps
	$(SWIFT) build

deps:
	scripts/ensure-deps.sh

# Side-by-side benchmark against ../shared/peers/python-boto3 (README "Performance").
bench:
	scripts/bench/run.sh

bench-quick:
	scripts/bench/run.sh --quick --out .build-bench/quick

clean:
	rm -rf .build $(STATE_DIR)

# PayPulse Gmail Connect. `make demo` runs the main job on the embedded store;
# `make test` runs every test (against a moto_server it starts on 127.0.0.1).
# Both install what a fresh machine lacks (libcurl/SQLite headers via apt, moto via pip).

SWIFT ?= swift
STATE_DIR ?= .paypulse

.PHONY: demo test build deps clean bundles test-deploy

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

# Self-contained Lambda bundles (.build-lambda/bundles/F.zip), then their proofs: each
# answers events in a chroot holding only itself and busybox, and under the Lambda
# Runtime Interface Emulator (from the SAM CLI in .venv-sam).
bundles: deps
	scripts/bundle.sh

test-deploy: bundles
	scripts/ensure-sam.sh >/dev/null
	scripts/test-bundles-chroot.sh
	scripts/test-bundles-rie.sh

clean:
	rm -rf .build .build-lambda $(STATE_DIR)

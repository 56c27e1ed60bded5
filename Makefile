# PayPulse Gmail Connect. `make demo` runs the main job on the embedded store;
# `make test` runs every test (against a moto_server it starts on 127.0.0.1).
# Both install what a fresh machine lacks (libcurl/SQLite headers via apt, moto via pip).
# `make fuzz` runs each libFuzzer target for FUZZ_SECONDS from its committed seeds.

SWIFT ?= swift
STATE_DIR ?= .paypulse
FUZZ_SECONDS ?= 60

.PHONY: demo test soak soak-run fuzz build deps clean check-template

demo: deps
	$(SWIFT) build --product paypulse
	PAYPULSE_STATE_DIR=$(STATE_DIR) .build/debug/paypulse demo

test:
	scripts/ensure-deps.sh --with-moto
	scripts/build-checked.sh
	scripts/with-moto.sh $(SWIFT) test --skip-build --skip ConcurrencySoakTests
	$(MAKE) soak-run

# The concurrency soak runs after the other suites, alone: its many processes would
# otherwise starve them (and they it). `make soak` runs it briefly on its own.
soak-run:
	$(SWIFT) test --skip-build --filter ConcurrencySoakTests

soak:
	scripts/ensure-deps.sh --with-moto
	scripts/build-checked.sh
	PAYPULSE_SOAK_SECONDS=$${PAYPULSE_SOAK_SECONDS:-10} $(MAKE) soak-run

fuzz:
	scripts/fuzz.sh $(FUZZ_SECONDS)

build: deps
	$(SWIFT) build

deps:
	scripts/ensure-deps.sh

clean:
	rm -rf .build .build-fuzz $(STATE_DIR)

# AWS SAM (`sam build`, BuildMethod makefile) runs build-<LogicalId> with ARTIFACTS_DIR set;
# samconfig.toml builds in source, so the four targets share one release build.
.PHONY: build-StoreTokensFunction build-UserProfileFunction build-TokenRefreshFunction build-DisconnectFunction
build-StoreTokensFunction:
	scripts/bundle.sh --function store-tokens --artifacts "$(ARTIFACTS_DIR)"
build-UserProfileFunction:
	scripts/bundle.sh --function user-profile --artifacts "$(ARTIFACTS_DIR)"
build-TokenRefreshFunction:
	scripts/bundle.sh --function token-refresh --artifacts "$(ARTIFACTS_DIR)"
build-DisconnectFunction:
	scripts/bundle.sh --function disconnect --artifacts "$(ARTIFACTS_DIR)"

# cfn-lint, sam validate --lint, sam build (no container) and the template's own checks.
check-template: deps
	scripts/check-template.sh

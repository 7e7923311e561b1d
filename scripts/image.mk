# The container image, built without a daemon or a registry (included by the
# Makefile).
#
#   make image        build/image/dra-tools.oci.tar: an OCI image layout
#                     (and a Docker manifest.json) of one layer with the tools,
#                     the shared libraries they load here, the loader and the
#                     CA certificates (scripts/make-image.py); load it with
#                     `podman load -i`, `docker load -i` or
#                     `skopeo copy oci-archive:build/image/dra-tools.oci.tar ...`
#
# deploy/Containerfile builds the same tools on Debian for those with a
# container engine and a registry.
.PHONY: image
IMAGE_DIR := $(BUILD)/image
image: $(BINS)
	$(call say,IMAGE,$(IMAGE_DIR)/dra-tools.oci.tar)
	$(Q)python3 scripts/make-image.py --bin $(BUILD)/bin --version $(VERSION) --out $(IMAGE_DIR) $(TOOLS)

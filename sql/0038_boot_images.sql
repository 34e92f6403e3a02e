-- regtrack schema, part 38: kernels built by one worker and booted by another.
--
-- A worker that built a kernel uploads its image (PUT /api/v1/images/SHA256,
-- stored under DATA_DIR/images/, server/imagestore.h); a bare-metal job
-- (accel kexec) may name such an image to boot instead of building: its
-- worker fetches it by its SHA-256 (GET /api/v1/images/SHA256) and checks
-- the bytes against the name. NULL: the worker builds the job's kernel.
ALTER TABLE jobs ADD COLUMN boot_image text CHECK (boot_image ~ '^[0-9a-f]{64}$');

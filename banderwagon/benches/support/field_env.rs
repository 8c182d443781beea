//! The field-backend switches of the benches and profiling programs (the libraries never read
//! the environment): `FVERKLE_PORTABLE_FIELD` and `FVERKLE_NO_LANES`, set to anything but `0`,
//! force the portable field code or turn off the 8-lane products, for A/B measurements.

/// Applies the two switches; call first thing in `main`.
pub fn field_backend_from_env() {
    let on = |name: &str| std::env::var_os(name).is_some_and(|v| v != "0");
    if on("FVERKLE_PORTABLE_FIELD") {
        banderwagon::use_portable_field(true);
    }
    if on("FVERKLE_NO_LANES") {
        banderwagon::use_lanes(false);
    }
}

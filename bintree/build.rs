//! Tells the test harness whether the build machine has AVX2, so that the test of the
//! two-message BLAKE3 path is reported as ignored (with the reason) on a machine without it,
//! instead of passing without testing anything. The library detects AVX2 at run time.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(build_host_has_avx2)");
    println!("cargo::rerun-if-changed=build.rs");
    let host = std::env::var("HOST").unwrap_or_default();
    let target = std::env::var("TARGET").unwrap_or_default();
    if host != target || !target.starts_with("x86_64") {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        println!("cargo::rustc-cfg=build_host_has_avx2");
    }
}

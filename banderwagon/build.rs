//! Tells the test harness which run-time detected field paths the build machine has, so a
//! hardware test that cannot run on it is reported as ignored (with the reason) instead of
//! passing without testing anything. The library itself still detects at run time.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(build_host_has_adx, build_host_has_ifma)");
    println!("cargo::rerun-if-changed=build.rs");
    let host = std::env::var("HOST").unwrap_or_default();
    let target = std::env::var("TARGET").unwrap_or_default();
    if host != target || !target.starts_with("x86_64") {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("bmi2") && std::is_x86_feature_detected!("adx") {
            println!("cargo::rustc-cfg=build_host_has_adx");
        }
        if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512ifma") {
            println!("cargo::rustc-cfg=build_host_has_ifma");
        }
    }
}

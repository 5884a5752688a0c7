//! The mapping on an injected filesystem: job files and command lines -> plans, and every
//! error text.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::*;
use crate::bench::spec::{EngineKind, Fallocate, OpenSync, RwMode, SgMode, SyncEvery};

const LSM: &str = "\
[global]
ioengine=psync
fdatasync=1
thread=1
runtime=60

[write128]
rw=write
bs=128k
size=10G
filename=db-write128

[randread128]
rw=randread
bs=128k
size=10G
filename=db-randread128

[write256]
rw=write
bs=256k
size=10G
filename=db-write256

[randread256]
rw=randread
bs=256k
size=10G
filename=db-randread256
";

/// Files to read and targets to find.
#[derive(Default)]
struct World {
    files: HashMap<PathBuf, Vec<u8>>,
    targets: HashMap<PathBuf, Found>,
    env: HashMap<String, String>,
    /// Bytes free on every filesystem.
    free: u64,
}

impl Probe for World {
    fn find(&self, path: &Path) -> std::io::Result<Found> {
        Ok(self.targets.get(path).copied().unwrap_or(Found::Missing))
    }
    fn free_bytes(&self, _dir: &Path) -> std::io::Result<u64> {
        Ok(self.free)
    }
    fn is_symlink(&self, _path: &Path) -> bool {
        false
    }

    fn canonical(&self, path: &Path) -> PathBuf {
        Path::new("/cwd").join(path.strip_prefix("./").unwrap_or(path))
    }
}

impl World {
    fn file(mut self, path: &str, text: &str) -> Self {
        self.files.insert(path.into(), text.as_bytes().to_vec());
        self
    }
    fn target(mut self, path: &str, found: Found) -> Self {
        self.targets.insert(path.into(), found);
        self
    }
    fn env(mut self, name: &str, value: &str) -> Self {
        self.env.insert(name.into(), value.into());
        self
    }

    fn load(&self, args: &[&str]) -> Result<FioInvocation, String> {
        let read = |p: &Path, max: u64| {
            let bytes = self.files.get(p).cloned().ok_or_else(|| {
                parse::Unreadable::Io(std::io::Error::from(std::io::ErrorKind::NotFound))
            })?;
            if bytes.len() as u64 > max {
                return Err(parse::Unreadable::TooBig);
            }
            Ok(parse::Contents { bytes, id: None })
        };
        let env = |name: &str| self.env.get(name).cloned();
        let io = Io {
            read: &read,
            env: &env,
            probe: self,
            seed_now: 777,
        };
        let args: Vec<String> = args.iter().map(|a| (*a).to_string()).collect();
        load_with(&args, &io, &machine()).map_err(|e| {
            assert_eq!(crate::error::exit_code(&e), 2, "usage error expected: {e}");
            e.to_string()
        })
    }
}

fn machine() -> MachineLimits {
    MachineLimits {
        available_cpus: vec![0, 1],
        memory_bytes: 24 << 30,
    }
}

fn world() -> World {
    World::default().target(".", Found::Dir)
}

fn jobs(inv: &FioInvocation) -> Vec<&Job> {
    inv.plan.steps.iter().flat_map(|s| &s.jobs).collect()
}

#[test]
fn the_lsm_example_is_one_step_of_four_jobs() {
    let inv = world().file("db.fio", LSM).load(&["db.fio"]).unwrap();
    assert_eq!(inv.plan.steps.len(), 1);
    let jobs = jobs(&inv);
    let names: Vec<_> = jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(
        names,
        ["write128", "randread128", "write256", "randread256"]
    );
    for (job, (rw, bs)) in jobs.iter().zip([
        (RwMode::Write, 128 << 10),
        (RwMode::RandRead, 128 << 10),
        (RwMode::Write, 256 << 10),
        (RwMode::RandRead, 256 << 10),
    ]) {
        let spec = &job.spec;
        assert_eq!(spec.rw, rw);
        assert_eq!(spec.block_size_bytes, bs);
        assert_eq!(spec.ioengine, EngineKind::Psync);
        assert_eq!(spec.sync_every, Some(SyncEvery::Fdatasync(1)));
        assert_eq!(spec.size_bytes, 10 << 30);
        assert_eq!(spec.io_size_bytes, Some(10 << 30), "size-based");
        assert_eq!(spec.runtime, Duration::from_secs(60), "a cap");
        assert_eq!((spec.iodepth, spec.numjobs), (1, 1));
        assert!(!spec.direct, "fio's default is buffered");
        assert!(!spec.cpus_split);
        assert_eq!(job.missing, Missing::Create { unlink: false });
        assert_eq!(job.target, Some(PathBuf::from(format!("db-{}", job.name))));
        assert_eq!(job.group, 0);
    }
    assert_eq!(
        inv.notes,
        ["db.fio:4: thread=1: accepted; diskdash's workers are always threads"]
    );
    assert_eq!(inv.groups.len(), 1);
    assert_eq!(inv.groups[0].jobs.len(), 4);
}

#[test]
fn the_command_line_gives_the_same_plan() {
    let file = world().file("db.fio", LSM).load(&["db.fio"]).unwrap();
    let mut args = vec![
        "--ioengine=psync",
        "--fdatasync",
        "1",
        "--thread",
        "--runtime=60",
    ];
    for (name, rw, bs) in [
        ("write128", "write", "128k"),
        ("randread128", "randread", "128k"),
        ("write256", "write", "256k"),
        ("randread256", "randread", "256k"),
    ] {
        args.extend(["--name", name, "--rw", rw, "--bs", bs, "--size=10G"]);
        args.push(Box::leak(format!("--filename=db-{name}").into_boxed_str()));
    }
    let line = world().load(&args).unwrap();
    assert_eq!(line.plan, file.plan);
}

#[test]
fn stonewall_starts_a_step_and_new_group_a_group() {
    let text = "[global]\nsize=1G\nfilename=f\n[a]\n[b]\nnew_group\n[c]\nstonewall\n[d]\n";
    let inv = world().load(&["--name=x"]).map(|_| ()).unwrap_err();
    assert!(inv.contains("no size"), "{inv}");
    let inv = world().file("j.fio", text).load(&["j.fio"]).unwrap();
    let shape: Vec<Vec<(&str, u32)>> = inv
        .plan
        .steps
        .iter()
        .map(|s| s.jobs.iter().map(|j| (j.name.as_str(), j.group)).collect())
        .collect();
    assert_eq!(shape, [vec![("a", 0), ("b", 1)], vec![("c", 2), ("d", 2)]]);
    assert_eq!(inv.groups.len(), 3);
}

#[test]
fn a_later_global_changes_later_jobs_only() {
    let text = "[global]\nbs=8k\nsize=1G\n[a]\nfilename=a\n[global]\nbs=16k\n[b]\nfilename=b\n\
                [c]\nfilename=c\nbs=32k\n";
    let inv = world().file("j.fio", text).load(&["j.fio"]).unwrap();
    let bs: Vec<u64> = jobs(&inv).iter().map(|j| j.spec.block_size_bytes).collect();
    assert_eq!(bs, [8 << 10, 16 << 10, 32 << 10]);
}

#[test]
fn includes_and_env_vars() {
    let w = world()
        .file(
            "jobs/main.fio",
            "[global]\ninclude common.fio\n[a]\nfilename=${FILE}\n",
        )
        .file("jobs/common.fio", "size=${SIZE}\nrw=randwrite\n")
        .env("SIZE", "2G")
        .env("FILE", "/data/f");
    let inv = w.load(&["jobs/main.fio"]).unwrap();
    let job = jobs(&inv)[0];
    assert_eq!(job.spec.size_bytes, 2 << 30);
    assert_eq!(job.spec.rw, RwMode::RandWrite);
    assert_eq!(job.target, Some(PathBuf::from("/data/f")));
}

#[test]
fn aliases_and_fio_semantics() {
    let inv = world()
        .target("/dev/sdb", Found::Block { bytes: 100 << 30 })
        .target("data", Found::File { bytes: 8 << 30 })
        .load(&[
            "--name=a",
            "--filename=/dev/sdb",
            "--readwrite=randrw",
            "--rwmixwrite=30",
            "--ioengine=libaio",
            "--iodepth=32",
            "--iodepth_batch_submit=8",
            "--iodepth_batch_complete_max=16",
            "--buffered=0",
            "--size=50%",
            "--io_limit=1G",
            "--randrepeat=0",
            "--ramp_time=5",
            "--startdelay=2",
            "--cpus_allowed=0-1",
            "--cpus_allowed_policy=split",
            "--end_fsync=1",
            "--offset_increment=1G",
            "--name=b",
            "--filename=data",
            "--time_based",
            "--runtime=30s",
            "--sync=dsync",
            "--randseed=42",
            "--offset=1G",
        ])
        .unwrap();
    let jobs = jobs(&inv);
    let a = &jobs[0].spec;
    assert_eq!(a.rw, RwMode::RandRw);
    assert_eq!(a.rwmixread_pct, 70);
    assert_eq!(a.ioengine, EngineKind::Libaio);
    assert_eq!(
        (a.iodepth, a.iodepth_batch, a.iodepth_batch_complete),
        (32, 8, 16)
    );
    assert!(a.direct);
    assert_eq!(a.size_bytes, 50 << 30);
    assert_eq!(a.io_size_bytes, Some(1 << 30));
    assert_eq!(a.runtime, crate::bench::options::MAX_RUN_TIME);
    assert_eq!(a.randseed, Some(777));
    assert_eq!(a.ramp, Duration::from_secs(5));
    assert_eq!(a.startdelay, Duration::from_secs(2));
    assert!(a.cpus_split && a.end_fsync);
    assert_eq!(a.offset_increment_bytes, 1 << 30);
    assert_eq!(jobs[0].missing, Missing::Refuse);
    let b = &jobs[1].spec;
    assert_eq!(b.io_size_bytes, None, "time_based");
    assert_eq!(b.runtime, Duration::from_secs(30));
    assert_eq!(b.size_bytes, 7 << 30, "the file's length past the offset");
    assert_eq!(b.randseed, Some(42));
    assert!(
        inv.notes.is_empty(),
        "libaio runs as libaio: {:?}",
        inv.notes
    );
}

#[test]
fn invocation_options_and_diskdash_flags() {
    let inv = world()
        .load(&[
            "--output-format=json",
            "--output",
            "out.json",
            "--status-interval=10",
            "--percentile_list=50:99:99.9",
            "--parse-only",
            "--showcmd",
            "--allow-destructive",
            "--no-tui",
            "--json",
            "rec.json",
            "--jsonl=rec.jsonl",
            "--force",
            "--redact",
            "--record-serial",
            "--trace",
            "--serve",
            "127.0.0.1:0",
            "--serve-linger=5s",
            "--name=a",
            "--size=1G",
            "--group_reporting",
            "--name=b",
            "--size=1G",
            "--section=b",
        ])
        .unwrap();
    assert_eq!(inv.output_format, OutputFormat::Json);
    assert_eq!(inv.output, Some(PathBuf::from("out.json")));
    assert_eq!(
        inv.status_interval.map(crate::units::Interval::get),
        Some(Duration::from_secs(10))
    );
    assert_eq!(inv.percentiles, Some(vec![50.0, 99.0, 99.9]));
    assert!(inv.parse_only && inv.showcmd);
    assert_eq!(
        inv.diskdash,
        DiskdashFlags {
            allow_destructive: true,
            no_tui: true,
            json: Some("rec.json".into()),
            jsonl: Some("rec.jsonl".into()),
            force: true,
            redact: true,
            record_serial: true,
            trace: true,
            serve: Some("127.0.0.1:0".into()),
            serve_linger: Some("5s".into()),
        }
    );
    let names: Vec<_> = jobs(&inv).iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["b"]);
    assert_eq!(jobs(&inv)[0].target, Some(PathBuf::from("b.0.0")));
    assert!(!inv.group_reporting, "a was not selected");
}

/// Without filename, each clone has a file of its own named as fio names it
/// (`$jobname.$jobnum.$filenum`), in `directory` when there is one.
#[test]
fn each_clone_has_its_own_file_named_as_fio_names_it() {
    let w = world()
        .target("data", Found::Dir)
        .file("k.fio", "[k]\nsize=4M\nnumjobs=3\n")
        .file("d.fio", "[d]\nsize=4M\nnumjobs=2\ndirectory=data\n")
        .file(
            "f.fio",
            "[f]\nsize=4M\nnumjobs=2\nfilename_format=$jobnum-$jobname\n",
        )
        .file("s.fio", "[s]\nsize=4M\nnumjobs=2\nfilename_format=same\n")
        .file("n.fio", "[n]\nsize=4M\nnumjobs=2\nfilename=shared\n");
    let job = |file: &str| w.load(&[file]).unwrap().plan.steps[0].jobs[0].clone();
    let k = job("k.fio");
    assert_eq!(k.target, Some(PathBuf::from("k.0.0")));
    assert_eq!(k.clones, [PathBuf::from("k.1.0"), PathBuf::from("k.2.0")]);
    assert_eq!(k.missing, Missing::Create { unlink: false });
    let d = job("d.fio");
    assert_eq!(d.target, Some(PathBuf::from("data/d.0.0")));
    assert_eq!(d.clones, [PathBuf::from("data/d.1.0")]);
    let f = job("f.fio");
    assert_eq!(f.target, Some(PathBuf::from("0-f")));
    assert_eq!(f.clones, [PathBuf::from("1-f")]);
    // A name without the clone's number, or a filename: the clones share it, as in fio.
    assert!(job("s.fio").clones.is_empty());
    assert!(job("n.fio").clones.is_empty());
}

#[test]
fn an_engine_diskdash_does_not_run_is_refused_before_its_own_options() {
    let w = world()
        // netio.fio's shape: the engine's options come first, the engine in [global].
        .file(
            "n.fio",
            "[global]\nioengine=net\n[recv]\nport=8888\nprotocol=tcp\n",
        )
        .file("x.fio", "[a]\ncmd_type=nvme\nioengine=xnvme\n")
        .file(
            "e.fio",
            "[global]\nioengine=e4defrag\n[a]\nioengine=psync\nsize=1G\nfoo=1\n",
        );
    assert_eq!(
        w.load(&["n.fio"]).unwrap_err(),
        r#"n.fio:2: ioengine "net": fio's net engine drives network sockets, not a block device or file; diskdash measures block storage (use io_uring, libaio, psync or null)"#
    );
    assert_eq!(
        w.load(&["x.fio"]).unwrap_err(),
        r#"x.fio:3: ioengine "xnvme": fio's xnvme engine drives NVMe from user space, not a block device or file; diskdash measures block storage (use io_uring, libaio, psync or null)"#
    );
    // A job's own engine overrides [global]'s: its unknown option is the reason.
    assert_eq!(
        w.load(&["e.fio"]).unwrap_err(),
        "e.fio:6: foo=1: not a fio option diskdash knows; see 'diskdash fio --help' for the \
         options it honours"
    );
    assert_eq!(
        w.load(&["--name=a", "--ioengine=quux"]).unwrap_err(),
        r#"--ioengine "quux" is not an engine; use io_uring, libaio, psync or null"#
    );
}

#[test]
fn strided_zones_take_fios_defaults_and_zbd_zones_are_emulated() {
    use crate::bench::spec::StridedZones;
    let w = world()
        // disk-zone-profile.fio's shape: zonemode, zonesize and zoneskip; a bare write_bw_log.
        .file(
            "z.fio",
            "[global]\nbs=64k\nrw=read\nzonemode=strided\nzonesize=256m\nzoneskip=2g\n\
             [p]\nsize=8g\nwrite_bw_log\n",
        )
        .file(
            "s.fio",
            "[a]\nsize=1g\nzonemode=strided\nzonesize=1m\nzonerange=4m\n",
        )
        .file(
            "n.fio",
            "[a]\nsize=1g\nzonemode=none\nzoneskip=1m\nzonerange=2m\n",
        )
        .file("d.fio", "[a]\nsize=1g\nzonesize=1m\n")
        .file(
            "b.fio",
            "[a]\nsize=1g\nzonemode=zbd\nzonesize=256m\nmax_open_zones=32\nread_beyond_wp=0\n",
        )
        .file(
            "j.fio",
            "[a]\nsize=1g\nzonemode=zbd\nzonesize=4m\njob_max_open_zones=2\nread_beyond_wp\n",
        )
        .file("e.fio", "[a]\nsize=1g\nzonemode=zbd\n")
        .file("f.fio", "[a]\nsize=1g\nbs=3k\nzonemode=zbd\nzonesize=4m\n")
        .file(
            "g.fio",
            "[a]\nsize=1g\nzonemode=zbd\nzonesize=4m\nzoneskip=4m\n",
        )
        .file(
            "h.fio",
            "[a]\nsize=1g\nzonemode=zbd\nzonesize=4m\nmax_open_zones=x\n",
        )
        .file(
            "v.fio",
            "[a]\nsize=1g\nrw=write\nverify=crc32c\nzonemode=zbd\nzonesize=4m\n",
        )
        .file("m.fio", "[a]\nsize=1g\nzonemode=strided\n")
        .file("q.fio", "[a]\nsize=1g\nzonemode=stripes\n")
        .file("k.fio", "[a]\nsize=1g\nzonemode=strided\nzonesize=0\n");
    let inv = w.load(&["z.fio"]).unwrap();
    let job = jobs(&inv)[0];
    assert_eq!(
        job.spec.zones,
        Some(StridedZones {
            size_bytes: 256 << 20,
            range_bytes: 256 << 20,
            skip_bytes: 2 << 30,
        })
    );
    assert!(
        inv.given
            .job("p")
            .iter()
            .any(|(k, v)| k == "write_bw_log" && v.is_empty()),
        "a bare write_bw_log takes the job's name as its prefix"
    );
    let inv = w.load(&["s.fio"]).unwrap();
    let zones = jobs(&inv)[0].spec.zones.unwrap();
    assert_eq!(
        (zones.size_bytes, zones.range_bytes, zones.skip_bytes),
        (1 << 20, 4 << 20, 0)
    );
    // zonemode=none: fio leaves zoneskip and zonerange unused, and refuses a zonesize.
    assert_eq!(jobs(&w.load(&["n.fio"]).unwrap())[0].spec.zones, None);
    assert_eq!(
        w.load(&["d.fio"]).unwrap_err(),
        "d.fio:3: zonesize=1m: zonesize needs zonemode=strided (fio: zonemode=none and \
         zonesize are not compatible); add zonemode=strided or drop zonesize"
    );
    use crate::bench::zbd::ZbdZones;
    let zbd = |file: &str| {
        let inv = w.load(&[file]).unwrap();
        let job = jobs(&inv)[0];
        assert_eq!(job.spec.zones, None);
        job.spec.zbd
    };
    assert_eq!(
        zbd("b.fio"),
        Some(ZbdZones {
            zone_bytes: 256 << 20,
            max_open: 32,
            job_max_open: 0,
            read_beyond_wp: false,
            reset_threshold_ppm: 0,
            reset_every: 0,
        })
    );
    assert_eq!(
        zbd("j.fio"),
        Some(ZbdZones {
            zone_bytes: 4 << 20,
            max_open: 0,
            job_max_open: 2,
            read_beyond_wp: true,
            reset_threshold_ppm: 0,
            reset_every: 0,
        })
    );
    assert_eq!(
        w.load(&["e.fio"]).unwrap_err(),
        "e.fio:3: zonemode=zbd: zonemode=zbd needs zonesize=SIZE on a target that is not a \
         zoned device (diskdash emulates the zones), e.g. zonesize=256m"
    );
    assert_eq!(
        w.load(&["f.fio"]).unwrap_err(),
        "f.fio:5: zonesize=4m: the zone size is not a multiple of the block size (3 KiB) (fio \
         refuses it too); choose a zonesize that is"
    );
    assert_eq!(
        w.load(&["g.fio"]).unwrap_err(),
        "g.fio:5: zoneskip=4m: it belongs to zonemode=strided; drop it with zonemode=zbd"
    );
    assert_eq!(
        w.load(&["h.fio"]).unwrap_err(),
        r#"h.fio:5: max_open_zones "x" is not a count of zones; use e.g. 32 (0: no limit)"#
    );
    assert!(
        w.load(&["v.fio"])
            .unwrap_err()
            .contains("diskdash does not verify on emulated zones"),
    );
    assert_eq!(
        w.load(&["m.fio"]).unwrap_err(),
        "m.fio:3: zonemode=strided needs zonesize=SIZE, as in fio (e.g. zonesize=256m)"
    );
    assert_eq!(
        w.load(&["q.fio"]).unwrap_err(),
        r#"q.fio:3: zonemode "stripes" is not a zone mode; use none, strided or zbd"#
    );
    assert_eq!(
        w.load(&["k.fio"]).unwrap_err(),
        r#"k.fio:4: zonesize "0" is not a size above 0; use e.g. 256m"#
    );
}

#[test]
fn every_bad_input_names_itself_and_the_fix() {
    let w = world()
        .file("a.fio", "[a]\nsize=1G\nfoo=1\n")
        .file("b.fio", "[a]\nsize=1G\nbs\n")
        .file("c.fio", "[a]\nfilename=nothere\n")
        .file("d.fio", "[a]\nsize=1G\nallow_destructive=1\n")
        .file("e.fio", "[a]\nsize=1G\ncontinue_on_error=sometimes\n")
        .file("f.fio", "[a]\nsize=1G\nnumjobs=0\n")
        .file(
            "g.fio",
            "[global]\nsize=1G\nrw=write\nfilename=x\n[a]\nverify=crc32c\n[b]\n",
        )
        .file("h.fio", "[a]\nsize=1G\noutput-format=json\n")
        .file("i.fio", "[a]\nsize=1G\nallow_mounted_write=1\n")
        .target("/dev/null", Found::Other)
        .target("dir", Found::Dir);
    let cases: &[(&[&str], &str)] = &[
        (
            &["a.fio"],
            "a.fio:3: foo=1: not a fio option diskdash knows; see 'diskdash fio --help' for the \
             options it honours",
        ),
        (
            &["--name=a", "--size=1G", "--foo"],
            "--foo: not a fio option diskdash knows; see 'diskdash fio --help' for the options \
             it honours",
        ),
        (&["b.fio"], "b.fio:3: bs needs a value; write bs=VALUE"),
        (
            &["--name=a", "--bs"],
            "--bs needs a value; write --bs=VALUE",
        ),
        (
            &["c.fio"],
            "c.fio:2: filename nothere does not exist and no size to create it; add size=SIZE \
             (e.g. size=10G) or create the file",
        ),
        (
            &["d.fio"],
            "d.fio:3: allow_destructive=1: a job file cannot allow destructive writes; pass \
             --allow-destructive to diskdash fio on the command line",
        ),
        (
            &["e.fio"],
            r#"e.fio:3: continue_on_error "sometimes" is not an error class; use none, read, write, io, verify, all, 0 or 1"#,
        ),
        (
            &["f.fio"],
            r#"f.fio:3: numjobs "0" must be at least 1; use e.g. 1, 2 or 4"#,
        ),
        (
            &["g.fio"],
            "jobs a and b both write and verify /cwd/x at the same time: each would read the \
             other's blocks as corrupt; give each its own filename, or add stonewall to run them \
             one after the other",
        ),
        (
            &["h.fio"],
            "h.fio:3: output-format=json: is an option of fio's command line, not of a job \
             file; pass --output-format=json",
        ),
        (
            &["i.fio"],
            "i.fio:3: allow_mounted_write=1: diskdash never writes to a mounted device; \
             unmount it, or run on a file in its filesystem",
        ),
        (
            &["--name=a", "--filename=a:b"],
            // fio's ':' list is two files; the first needs a size to be created.
            "--filename a does not exist and no size to create it; add size=SIZE (e.g. \
             size=10G) or create the file",
        ),
        (
            &["--name=a", "--filename=/dev/null"],
            "--filename=/dev/null: /dev/null is neither a regular file nor a block device; name \
             a file or a disk",
        ),
        (
            &["--name=a", "--filename=dir"],
            "--filename=dir: dir is a directory; use directory=dir for the job's files in it",
        ),
        (
            &["--name=a", "--directory=nodir", "--size=1G"],
            "--directory=nodir: job a has no target: nodir is not a directory; give \
             filename=FILE or directory=DIR",
        ),
        (
            &["--name=a"],
            "job a has no size: its new file a.0.0 needs one; add size=SIZE (e.g. size=1G) or \
             filename=FILE",
        ),
        (
            &["--name=a", "--size=50%"],
            "--size 50%: a share needs filename= naming an existing file or device; give a \
             size, e.g. size=10G",
        ),
        (
            &["--name=a", "--size=1G", "--rwmixwrite=101"],
            r#"--rwmixwrite "101" is not a percentage; use 0 to 100"#,
        ),
        (
            &["--name=a", "--size=1G", "--ioengine=spdk"],
            r#"--ioengine "spdk" is not an engine; use io_uring, libaio, psync or null"#,
        ),
        (
            &["--terse-version=5", "--name=a", "--size=1G"],
            "--terse-version=5: diskdash writes terse version 3 (fio's default); use \
             --terse-version=3 or leave it out",
        ),
        (
            &["--output-format=xml", "--name=a", "--size=1G"],
            "--output-format=xml: not an output format diskdash writes; use normal, json, json+ \
             or terse (one of them)",
        ),
        (
            &["--percentile_list=50:101", "--name=a", "--size=1G"],
            r#"--percentile_list "50:101" is not a list of percentiles; use e.g. 50:99:99.9 (each above 0, at most 100, at most 20)"#,
        ),
        (
            &["--section=zz", "--name=a", "--size=1G"],
            "--section=zz names no job section; the jobs are: a",
        ),
        (
            &["--readonly", "--name=a", "--size=1G", "--rw=write"],
            "--readonly: job a writes (write); drop --readonly or make it a read job",
        ),
        (
            &["--no-tui=1", "--name=a", "--size=1G"],
            "--no-tui=1: --no-tui is a switch and takes no value",
        ),
        (
            &[],
            "no job to run: give a job file with a [job] section, or --name=JOB with its options \
             (see 'diskdash fio --help')",
        ),
        (
            &["--name=a", "--size=1G", "--bs=12k5"],
            r#"--bs "12k5" is not a size; use e.g. 4k, 1M or 512"#,
        ),
    ];
    for (args, want) in cases {
        assert_eq!(w.load(args).unwrap_err(), *want, "{args:?}");
    }
}

#[test]
fn a_stonewall_lets_two_jobs_write_one_file_and_readers_may_share() {
    let w = world()
        .file(
            "a.fio",
            "[global]\nsize=1G\nfilename=x\n[a]\nrw=write\n[b]\nrw=write\nstonewall\n",
        )
        .file(
            "b.fio",
            "[global]\nsize=1G\nfilename=x\n[a]\nrw=write\n[b]\nrw=read\n",
        );
    assert_eq!(w.load(&["a.fio"]).unwrap().plan.steps.len(), 2);
    assert_eq!(w.load(&["b.fio"]).unwrap().plan.steps.len(), 1);
}

#[test]
fn tuning_options_are_accepted_with_one_note_each() {
    let inv = world()
        .file(
            "t.fio",
            "[global]\nsize=1G\ngtod_reduce=1\nbwavgtime=500\ncreate_on_open\n[a]\n[b]\n",
        )
        .load(&["t.fio"])
        .unwrap();
    assert_eq!(inv.notes.len(), 3, "{:?}", inv.notes);
    assert_eq!(
        inv.notes[0],
        "t.fio:3: gtod_reduce=1: accepted; it tunes fio's own measurement, diskdash measures \
         every I/O the same way"
    );
}

#[test]
fn libaio_jobs_run_on_libaio_and_userspace_reap_is_noted() {
    let inv = world()
        .file(
            "a.fio",
            "[a]\nsize=1G\nioengine=libaio\niodepth=64\nuserspace_reap\n",
        )
        .load(&["a.fio"])
        .unwrap();
    let spec = &jobs(&inv)[0].spec;
    assert_eq!((spec.ioengine, spec.iodepth), (EngineKind::Libaio, 64));
    assert_eq!(
        inv.notes,
        ["a.fio:5: userspace_reap: accepted; diskdash's libaio always reaps with io_getevents"]
    );
}

#[test]
fn an_existing_file_gives_its_size_and_unlink_leaves_it() {
    let inv = world()
        .target("f", Found::File { bytes: 1 << 30 })
        .load(&["--name=a", "--filename=f", "--unlink=1"])
        .unwrap();
    let job = jobs(&inv)[0];
    assert_eq!(job.spec.size_bytes, 1 << 30);
    assert_eq!(job.missing, Missing::Refuse);
    assert_eq!(
        inv.notes,
        ["job a: unlink=1: f existed before the run; diskdash only removes files it created"]
    );
    let created = world()
        .load(&["--name=a", "--filename=new", "--size=1M", "--unlink"])
        .unwrap();
    assert_eq!(jobs(&created)[0].missing, Missing::Create { unlink: true });
}

proptest::proptest! {
    #[test]
    fn random_sections_and_values_never_panic(
        sections in proptest::collection::vec(
            (
                "[a-z]{1,6}",
                proptest::collection::vec(
                    (
                        proptest::sample::select(vec![
                            "rw", "bs", "size", "iodepth", "numjobs", "ioengine", "filename",
                            "directory", "runtime", "time_based", "stonewall", "new_group",
                            "rwmixwrite", "io_size", "offset", "randrepeat", "buffered",
                            "percentile_list", "unlink", "cpus_allowed", "sync", "bogus",
                        ]),
                        proptest::option::of("[ -~]{0,8}"),
                    ),
                    0..6,
                ),
            ),
            0..5,
        )
    ) {
        let mut text = String::new();
        for (name, options) in &sections {
            text.push_str(&format!("[{name}]\n"));
            for (option, value) in options {
                match value {
                    Some(v) => text.push_str(&format!("{option}={v}\n")),
                    None => text.push_str(&format!("{option}\n")),
                }
            }
        }
        let w = world().file("p.fio", &text).target("f", Found::File { bytes: 1 << 20 });
        let _ = w.load(&["p.fio"]);
    }
}

#[test]
fn what_jobs_multiply_is_capped_before_it_is_built() {
    // Each job repeats the global options above it: the product is refused before mapping.
    let text = format!(
        "[global]\nsize=1M\n{}{}",
        "bs=4k\n".repeat(2_000),
        (0..200).map(|i| format!("[j{i}]\n")).collect::<String>()
    );
    assert_eq!(
        world().file("m.fio", &text).load(&["m.fio"]).unwrap_err(),
        "the 200 jobs take 400200 options in all (each repeats the [global] options above \
         it); the limit is 262144; put fewer options in [global] or run fewer jobs"
    );
    // Only the jobs --section picks count.
    let picked = world()
        .file("m.fio", &text)
        .load(&["m.fio", "--section=j7"])
        .unwrap();
    assert_eq!(jobs(&picked).len(), 1);
    // Workers: numjobs summed over the jobs.
    let workers = format!(
        "[global]\nsize=1M\nnumjobs=1024\n{}",
        (0..5).map(|i| format!("[j{i}]\n")).collect::<String>()
    );
    assert_eq!(
        world()
            .file("w.fio", &workers)
            .load(&["w.fio"])
            .unwrap_err(),
        "job j4 takes the workers to 5120 (numjobs summed over the jobs); the limit is 4096; \
         lower numjobs or split the jobs into several runs"
    );
    // Jobs of the command line count with those of the files.
    let mut args = vec!["j.fio".to_string(), "--size=1M".to_string()];
    args.extend((0..2).map(|i| format!("--name=c{i}")));
    let file_jobs = (0..4_095).map(|i| format!("[f{i}]\n")).collect::<String>();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(
        world().file("j.fio", &file_jobs).load(&args).unwrap_err(),
        "job f4094 would be job 4097; the limit is 4096 jobs; split them into several runs"
    );
}

#[test]
fn notes_past_a_hundred_are_counted_in_one() {
    let text = format!("[global]\nsize=1M\n{}[a]\n", "thread\n".repeat(150));
    let inv = world().file("n.fio", &text).load(&["n.fio"]).unwrap();
    assert_eq!(inv.notes.len(), 101);
    assert_eq!(
        inv.notes.last().unwrap(),
        "50 more notes like these are not shown (options accepted without effect)"
    );
}

#[test]
fn prefixes_and_single_dashes_name_fio_s_options_as_getopt_long_only() {
    let full = world()
        .load(&[
            "--name=iops",
            "--rw=read",
            "--bs=4k",
            "--size=1M",
            "--iodepth=64",
            "--runtime=15",
            "--ramp_time=5",
            "--group_reporting",
        ])
        .unwrap();
    for args in [
        // The seed notes' lines, as pasted: a prefix and fio's single-dash long options.
        &[
            "--name=iops",
            "--rw=read",
            "--bs=4k",
            "--size=1M",
            "--iodepth=64",
            "--runtime=15",
            "--ramp_time=5",
            "--group_report",
        ][..],
        &[
            "-name=iops",
            "-rw=read",
            "-bs=4k",
            "-size=1M",
            "-iodepth=64",
            "-runtime=15",
            "-ramp_time=5",
            "-group_reporting",
        ],
        &[
            "-name",
            "iops",
            "-rw",
            "read",
            "--bs",
            "4k",
            "-size",
            "1M",
            "--iodepth=64",
            "-runt",
            "15",
            "--ramp=5",
            "-group_r",
        ],
    ] {
        let inv = world().load(args).unwrap();
        assert_eq!(inv.plan, full.plan, "{args:?}");
        assert!(inv.group_reporting, "{args:?}");
    }
    let other = world()
        .load(&[
            "--name=a",
            "--size=1M",
            "--readonly",
            "--eta=never",
            "--output-format=json+",
            "--name=b",
            "--size=1M",
            "--section=a",
            "--section=b",
        ])
        .unwrap();
    assert_eq!(jobs(&other).len(), 2);
    assert_eq!(other.output_format, OutputFormat::JsonPlus);
    assert_eq!(
        world()
            .load(&["--minim", "--name=a", "--size=1M"])
            .unwrap()
            .output_format,
        OutputFormat::Terse
    );
    assert_eq!(
        world()
            .load(&["--name=a", "--size=1M", "--iodepth_batch_comp=1"])
            .unwrap_err(),
        "--iodepth_batch_comp: ambiguous, it begins the options iodepth_batch_complete_max, \
         iodepth_batch_complete; write more of the name"
    );
    // Destroying data is never asked for by a prefix.
    assert_eq!(
        world()
            .load(&["--allow-destr", "--name=a", "--size=1M"])
            .unwrap_err(),
        "--allow-destr: not a fio option diskdash knows; see 'diskdash fio --help' for the \
         options it honours"
    );
    assert_eq!(
        world()
            .load(&["--name=a", "--size=1M", "--rw=write", "--readonly"])
            .unwrap_err(),
        "--readonly: job a writes (write); drop --readonly or make it a read job"
    );
}

#[test]
fn every_name_of_the_table_is_an_option() {
    for name in OPTION_NAMES.iter() {
        assert!(exact(name).is_some(), "{name}");
        assert_eq!(resolve(name).unwrap().unwrap().0, *name);
        assert_eq!(
            resolve(&name.replace('_', "-")).unwrap().unwrap().0,
            name.replace('_', "-")
        );
    }
}

proptest::proptest! {
    /// Any prefix of any option: it is that option, another option it begins, or an error
    /// naming at least two options it begins; a word no option begins is nobody's.
    #[test]
    fn a_prefix_names_the_one_option_it_begins_or_says_which_it_could_be(
        which in 0..OPTION_NAMES.len(),
        cut in 1usize..40,
        junk in "[a-z_]{0,3}",
    ) {
        let name = OPTION_NAMES[which];
        let prefix = format!("{}{junk}", &name[..cut.min(name.len())]);
        match resolve(&prefix) {
            Ok(Some((full, _))) => proptest::prop_assert!(full.starts_with(&prefix), "{prefix} -> {full}"),
            Ok(None) => proptest::prop_assert!(
                !OPTION_NAMES.iter().any(|n| n.starts_with(&prefix) && *n != "allow_destructive"),
                "{prefix}"
            ),
            Err(e) => {
                let text = e.to_string();
                proptest::prop_assert!(!text.contains('\n'));
                let listed = text.split("the options ").nth(1).unwrap().split(';').next().unwrap();
                let listed: Vec<&str> = listed.split(", ").collect();
                proptest::prop_assert!(listed.len() >= 2, "{text}");
                for option in listed {
                    proptest::prop_assert!(option.starts_with(&prefix), "{text}");
                }
            }
        }
        if resolve(name).is_ok() {
            proptest::prop_assert_eq!(resolve(name).unwrap().unwrap().0, name);
        }
    }

    /// `--opt value`, `--opt=value`, `-opt value` and `-opt=value` are one command line.
    #[test]
    fn every_spelling_of_an_option_is_the_same_command_line(
        options in proptest::collection::vec(
            (
                proptest::sample::select(vec!["bs", "rw", "size", "iodepth", "name", "runtime", "numjobs"]),
                "[a-z0-9]{1,6}",
            ),
            0..8,
        ),
        spelling in 0u8..4,
    ) {
        let mut canonical = Vec::new();
        let mut spelled = Vec::new();
        for (option, value) in &options {
            canonical.push(format!("--{option}={value}"));
            let dashes = if spelling % 2 == 0 { "--" } else { "-" };
            if spelling < 2 {
                spelled.push(format!("{dashes}{option}={value}"));
            } else {
                spelled.push(format!("{dashes}{option}"));
                spelled.push(value.clone());
            }
        }
        let a = parse::command_line(&canonical, &resolve).map_err(|e| e.to_string());
        let b = parse::command_line(&spelled, &resolve).map_err(|e| e.to_string());
        proptest::prop_assert_eq!(a, b);
    }
}

/// KDiskMark's two command lines (`src/helper.cpp`): the layout, then a measured loop.
#[test]
fn kdiskmarks_buffer_and_layout_options_keep_fios_meaning() {
    let prepare = world()
        .load(&[
            "--output-format=json",
            "--create_only=1",
            "--filename=/d/.kdiskmark.tmp",
            "--size=1024m",
            "--zero_buffers=0",
            "--name=prepare",
        ])
        .unwrap();
    assert!(prepare.create_only);
    assert_eq!(jobs(&prepare)[0].missing, Missing::Create { unlink: false });
    assert!(prepare.notes.is_empty(), "{:?}", prepare.notes);
    let measure = world()
        .target("/d/.kdiskmark.tmp", Found::File { bytes: 1 << 30 })
        .load(&[
            "--output-format=json",
            "--ioengine=libaio",
            "--randrepeat=0",
            "--refill_buffers",
            "--end_fsync=1",
            "--direct=1",
            "--rwmixread=70",
            "--filename=/d/.kdiskmark.tmp",
            "--name=randread",
            "--size=1024m",
            "--zero_buffers=0",
            "--bs=4k",
            "--runtime=5",
            "--rw=randread",
            "--iodepth=32",
            "--numjobs=16",
        ])
        .unwrap();
    assert!(!measure.create_only);
    let spec = &jobs(&measure)[0].spec;
    // Size-based, capped at 5 s, as fio runs it without time_based.
    assert_eq!(spec.io_size_bytes, Some(1 << 30));
    assert_eq!(spec.runtime, Duration::from_secs(5));
    // Fresh random data before every write, as fio's refill_buffers.
    assert_eq!(spec.data, BufferData::Refill);
    assert!(measure.notes.is_empty(), "{:?}", measure.notes);
    // fio's defaults given explicitly cost no note.
    let quiet = world()
        .load(&[
            "--name=a",
            "--size=1M",
            "--refill_buffers=0",
            "--zero_buffers=0",
            "--create_only=0",
        ])
        .unwrap();
    assert!(
        quiet.notes.is_empty() && !quiet.create_only,
        "{:?}",
        quiet.notes
    );
    assert_eq!(jobs(&quiet)[0].spec.data, BufferData::Random);
    // KDiskMark's "Zeros": zero_buffers=1 beside refill_buffers writes zeros, as fio does.
    let zeros = world()
        .load(&[
            "--name=a",
            "--size=1M",
            "--refill_buffers",
            "--zero_buffers=1",
        ])
        .unwrap();
    assert_eq!(jobs(&zeros)[0].spec.data, BufferData::Zero);
    assert_eq!(
        world()
            .file("j.fio", "[prep]\nsize=1M\ncreate_only=1\n[run]\nsize=1M\n")
            .load(&["j.fio"])
            .unwrap_err(),
        "job prep has create_only=1 but job run runs: diskdash lays out the files of a whole \
         command line or runs it; give the create_only jobs their own command line"
    );
}

fn one(text: &str) -> Result<FioInvocation, String> {
    world().file("j.fio", text).load(&["j.fio"])
}

#[test]
fn loops_multiplies_the_bytes_moved() {
    let inv = one("[a]\nsize=16m\nloops=3\n").unwrap();
    assert_eq!(jobs(&inv)[0].spec.io_size_bytes, Some(48 << 20));
    let inv = one("[a]\nsize=16m\nio_size=4m\nloops=2\n").unwrap();
    assert_eq!(jobs(&inv)[0].spec.io_size_bytes, Some(8 << 20));
    let err = one("[a]\nsize=16m\nloops=0\n").unwrap_err();
    assert!(
        err.contains("j.fio:3: loops \"0\" is not a number of loops"),
        "{err}"
    );
    let inv = one("[a]\nsize=16m\nloops=3\ntime_based\nruntime=2s\n").unwrap();
    assert_eq!(jobs(&inv)[0].spec.io_size_bytes, None);
    assert!(
        inv.notes.iter().any(|n| n.contains("loops=3: ignored")),
        "{:?}",
        inv.notes
    );
}

#[test]
fn time_based_without_runtime_runs_size_based_with_a_note() {
    let inv = one("[a]\nsize=16m\ntime_based\n").unwrap();
    assert_eq!(jobs(&inv)[0].spec.io_size_bytes, Some(16 << 20));
    assert!(
        inv.notes
            .iter()
            .any(|n| n.contains("time_based needs a runtime")),
        "{:?}",
        inv.notes
    );
}

#[test]
fn number_ios_thinktime_and_rate_min_reach_the_job() {
    let inv = one(
        "[a]\nsize=16m\nnumber_ios=100\nthinktime=250\nthinktime_spin=50\n\
         thinktime_blocks=4\nthinktime_blocks_type=issue\nratemin=1m\nrate_cycle=500\n",
    )
    .unwrap();
    let spec = &jobs(&inv)[0].spec;
    assert_eq!(spec.number_ios, Some(100));
    let think = spec.think.unwrap();
    assert_eq!(
        think.pause,
        Duration::from_micros(250),
        "bare: microseconds"
    );
    assert_eq!(think.spin, Duration::from_micros(50));
    assert_eq!((think.blocks, think.on_issue), (4, true));
    let floor = spec.rate_min.unwrap();
    assert_eq!(floor.bytes_per_sec, Some(1 << 20));
    assert_eq!(
        floor.cycle,
        Duration::from_millis(500),
        "bare: milliseconds"
    );
    let inv = one("[a]\nsize=16m\nnumber_ios=0\nthinktime=10ms\n").unwrap();
    let spec = &jobs(&inv)[0].spec;
    assert_eq!(spec.number_ios, None, "0: no limit");
    assert_eq!(spec.think.unwrap().blocks, 1);
    assert!(!spec.think.unwrap().on_issue);
    let err = one("[a]\nsize=16m\nthinktime_blocks=4\n").unwrap_err();
    assert!(err.contains("thinktime_blocks needs thinktime"), "{err}");
    let err = one("[a]\nsize=16m\nthinktime=10\nthinktime_spin=20\n").unwrap_err();
    assert!(err.contains("is longer than"), "{err}");
    let err = one("[a]\nsize=16m\nrate_min=1m,2m\n").unwrap_err();
    assert!(err.contains("one floor for every direction"), "{err}");
}

#[test]
fn verify_kinds_of_fio_map_to_ours_with_a_note() {
    let inv = one("[a]\nsize=16m\nrw=write\nverify=md5\ndo_verify=0\n").unwrap();
    let verify = jobs(&inv)[0].spec.verify.unwrap();
    assert_eq!(verify.kind.as_str(), "sha256");
    assert!(!verify.read_back, "do_verify=0");
    assert!(
        inv.notes
            .iter()
            .any(|n| n.contains("verify=md5 runs as diskdash's sha256"))
    );
    let inv = one("[a]\nsize=16m\nrw=write\nverify=crc64\n").unwrap();
    let verify = jobs(&inv)[0].spec.verify.unwrap();
    assert_eq!(verify.kind.as_str(), "crc32c");
    assert!(verify.read_back, "do_verify defaults to 1");
    let inv = one("[a]\nsize=16m\ndo_verify=0\n").unwrap();
    assert!(inv.notes.iter().any(|n| n.contains("nothing to check")));
}

#[test]
fn threads_and_continue_on_error_none_are_accepted_and_fallocate_is_honoured() {
    let inv = one("[a]\nsize=16m\nthreads=1\nfallocate=keep\ncontinue_on_error=none\n").unwrap();
    assert_eq!(jobs(&inv)[0].spec.fallocate, Fallocate::Keep);
    assert!(!inv.notes.iter().any(|n| n.contains("fallocate")));
    for (text, mode) in [
        ("0", Fallocate::None),
        ("none", Fallocate::None),
        ("1", Fallocate::Posix),
        ("posix", Fallocate::Posix),
        ("truncate", Fallocate::Truncate),
    ] {
        let inv = one(&format!("[a]\nsize=16m\nfallocate={text}\n")).unwrap();
        assert_eq!(jobs(&inv)[0].spec.fallocate, mode, "{text}");
    }
    let inv = one("[a]\nsize=16m\n").unwrap();
    assert_eq!(jobs(&inv)[0].spec.fallocate, Fallocate::Native);
    let err = one("[a]\nsize=16m\nfallocate=maybe\n").unwrap_err();
    assert!(
        err.contains("j.fio:3: fallocate \"maybe\" is not a way to preallocate"),
        "{err}"
    );
}

#[test]
fn the_zone_suffix_is_refused_naming_zones() {
    let err = one("[a]\nsize=2z\n").unwrap_err();
    assert!(err.contains("j.fio:2: size \"2z\" counts zones"), "{err}");
    let err = one("[a]\nsize=16m\noffset=1z\n").unwrap_err();
    assert!(err.contains("counts zones"), "{err}");
}

#[test]
fn wait_for_starts_a_step_after_the_job_it_names() {
    let inv = one("[global]\nsize=16m\n[w]\nrw=write\nfilename=f\n[r]\nwait_for=w\nfilename=f\n")
        .unwrap();
    assert_eq!(inv.plan.steps.len(), 2);
    assert_eq!(inv.plan.steps[1].jobs[0].name, "r");
    let err = one("[global]\nsize=16m\n[a]\n[b]\n[c]\nwait_for=a\n").unwrap_err();
    assert!(err.contains("job a runs beside b"), "{err}");
    let err = one("[global]\nsize=16m\n[a]\nwait_for=z\n").unwrap_err();
    assert!(err.contains("names no job before job a"), "{err}");
    let err = one("[global]\nsize=16m\n[a]\n[b]\nwait_for=a\n[c]\n").unwrap_err();
    assert!(
        err.contains("job c would start after job b's wait_for"),
        "{err}"
    );
    // A job ended in an earlier step: nothing to wait for.
    let inv = one("[global]\nsize=16m\n[a]\n[b]\nstonewall\n[c]\nwait_for=a\n").unwrap();
    assert_eq!(inv.plan.steps.len(), 2);
    assert_eq!(inv.plan.steps[1].jobs.len(), 2);
}

#[test]
fn the_random_map_is_on_unless_norandommap_and_random_generator_picks_how() {
    use crate::bench::randmap::Generator;
    let inv = world()
        .file(
            "t.fio",
            "[global]\nsize=1G\nrw=randread\n[a]\n[b]\nnorandommap\n[c]\nrandom_generator=lfsr\n\
             [d]\nnorandommap=0\nrandom_generator=tausworthe64\n",
        )
        .load(&["t.fio"])
        .unwrap();
    let got: Vec<(bool, Generator)> = jobs(&inv)
        .iter()
        .map(|j| (j.spec.random_map, j.spec.random_generator))
        .collect();
    assert_eq!(
        got,
        [
            (true, Generator::Tausworthe),
            (false, Generator::Tausworthe),
            (true, Generator::Lfsr),
            (true, Generator::Tausworthe64),
        ]
    );
    let err = world()
        .file("t.fio", "[a]\nsize=1G\nrandom_generator=mt\n")
        .load(&["t.fio"])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.fio:3: random_generator \"mt\" is not a random generator; use tausworthe, lfsr or \
         tausworthe64"
    );
}

#[test]
fn fio_patterns_are_hex_strings_and_numbers() {
    assert_eq!(fio_pattern("0xaa555aa5"), Ok(vec![0xaa, 0x55, 0x5a, 0xa5]));
    assert_eq!(fio_pattern("0x1"), Ok(vec![0x01]));
    assert_eq!(fio_pattern("'ab' 0x01"), Ok(vec![b'a', b'b', 1]));
    assert_eq!(fio_pattern("\"x\""), Ok(vec![b'x']));
    assert_eq!(fio_pattern("255"), Ok(vec![255]));
    assert_eq!(fio_pattern("256").map(|b| b.len()), Ok(2));
    assert_eq!(fio_pattern("0x"), Err("0x with no hex digits".to_string()));
    assert_eq!(
        fio_pattern("'ab"),
        Err("a string with no closing '".to_string())
    );
    assert_eq!(
        fio_pattern("zz"),
        Err("\"zz\" is not part of a pattern".to_string())
    );
    assert_eq!(fio_pattern(" "), Err("an empty pattern".to_string()));
    assert_eq!(fio_pattern("''"), Err("an empty pattern".to_string()));
    let long = format!("0x{}", "ab".repeat(513));
    assert_eq!(
        fio_pattern(&long),
        Err("longer than fio's 512 bytes".to_string())
    );
}

proptest::proptest! {
    /// Any hex string reads back as its bytes; any text parses or fails without a panic.
    #[test]
    fn fio_pattern_hex_round_trips(bytes in proptest::collection::vec(proptest::num::u8::ANY, 1..64), junk in ".{0,40}") {
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        proptest::prop_assert_eq!(fio_pattern(&format!("0x{hex}")), Ok(bytes));
        if let Ok(parsed) = fio_pattern(&junk) {
            proptest::prop_assert!(!parsed.is_empty() && parsed.len() <= 512);
        }
    }
}

#[test]
fn ignore_error_lists_are_errno_names_or_numbers() {
    assert_eq!(ignore_error(",ENOSPC"), Ok(vec![vec![], vec![28]]));
    assert_eq!(
        ignore_error("EIO:-5,28,EILSEQ"),
        Ok(vec![vec![5, 5], vec![28], vec![84]])
    );
    assert_eq!(ignore_error("EWHAT"), Err("EWHAT".to_string()));
    assert_eq!(ignore_error("99999"), Err("99999".to_string()));
    assert_eq!(
        ignore_error("EIO,EIO,EIO,EIO"),
        Err("EIO,EIO,EIO,EIO".to_string())
    );
}

#[test]
fn flow_reaches_the_job() {
    let inv = one("[a]\nsize=16m\nflow=8\nflow_id=3\nflow_sleep=1000\n").unwrap();
    assert_eq!(
        jobs(&inv)[0].spec.flow,
        Some(crate::bench::spec::Flow {
            weight: 8,
            id: 3,
            sleep: Duration::from_micros(1000),
        }),
        "bare flow_sleep: microseconds"
    );
    // fio's default flow=0: no flow control, whatever flow_id and flow_sleep say.
    let inv = one("[a]\nsize=16m\nflow_id=3\nflow_sleep=1000\n").unwrap();
    assert_eq!(jobs(&inv)[0].spec.flow, None);
    let inv = one("[a]\nsize=16m\nflow=0\n").unwrap();
    assert_eq!(jobs(&inv)[0].spec.flow, None);
    let err = one("[a]\nsize=16m\nflow=-1\n").unwrap_err();
    assert!(
        err.contains("flow \"-1\" is not a flow weight; use 0 to 1000"),
        "{err}"
    );
    let err = one("[a]\nsize=16m\nflow=1\nflow_id=x\n").unwrap_err();
    assert!(err.contains("flow_id \"x\" is not a flow group"), "{err}");
}

#[test]
fn fios_sg_engine_runs_direct_on_a_block_device_by_its_write_mode() {
    let w = world()
        .target("/dev/sdb", Found::Block { bytes: 1 << 30 })
        .target("/dev/sg0", Found::Other)
        .file(
            "v.fio",
            "[global]\nfilename=/dev/sdb\nbuffer_pattern=0x01\nioengine=sg\nrw=write\nbs=512\n\
             number_ios=20\nstonewall\n[precon]\n[v01]\nsg_write_mode=verify_bytchk_01\n\
             [same]\nsg_write_mode=write_same\nwritefua=1\n[rand]\nrw=randwrite\n\
             sg_write_mode=verify_bytchk_11\n",
        )
        .file(
            "mix.fio",
            "[a]\nfilename=/dev/sdb\nioengine=sg\nrw=randrw\nsg_write_mode=verify_bytchk_00\n",
        )
        .file(
            "other.fio",
            "[a]\nfilename=/dev/sdb\nsg_write_mode=write_same\n",
        )
        .file(
            "bad.fio",
            "[a]\nfilename=/dev/sdb\nioengine=sg\nsg_write_mode=scribble\n",
        )
        .file("sg0.fio", "[a]\nfilename=/dev/sg0\nioengine=sg\n");
    let inv = w.load(&["v.fio"]).unwrap();
    let specs: Vec<_> = jobs(&inv).iter().map(|j| j.spec.clone()).collect();
    let modes: Vec<_> = specs.iter().map(|s| (s.rw, s.sg)).collect();
    assert_eq!(
        modes,
        [
            (RwMode::Write, Some(SgMode::Write)),
            (RwMode::Read, Some(SgMode::VerifyCompare)),
            (RwMode::Write, Some(SgMode::Same)),
            (RwMode::RandRead, Some(SgMode::VerifyEachBlock)),
        ]
    );
    assert!(
        specs
            .iter()
            .all(|s| s.direct && s.buffer_pattern == Some(vec![1]))
    );
    assert_eq!(specs[2].open_sync, Some(OpenSync::Dsync));
    assert!(
        inv.notes
            .iter()
            .any(|n| n.contains("runs as diskdash's psync") && n.contains("SCSI commands (CDBs)")),
        "{:?}",
        inv.notes
    );
    assert_eq!(
        w.load(&["mix.fio"]).unwrap_err(),
        r#"mix.fio:5: sg_write_mode "verify_bytchk_00" reads where the job writes, but rw=randrw mixes reads and writes; use rw=write or rw=randwrite with it"#
    );
    assert_eq!(
        w.load(&["other.fio"]).unwrap_err(),
        r#"other.fio:3: sg_write_mode "write_same": an option of fio's sg engine, and the job's engine is not sg; set ioengine=sg (on a block device) or drop it"#
    );
    assert_eq!(
        w.load(&["bad.fio"]).unwrap_err(),
        r#"bad.fio:4: sg_write_mode "scribble" is not an sg write mode; use write, write_and_verify, verify_bytchk_00, verify_bytchk_01, verify_bytchk_11, write_same, write_same_ndob or write_stream"#
    );
    assert_eq!(
        w.load(&["sg0.fio"]).unwrap_err(),
        "sg0.fio:2: filename=/dev/sg0: /dev/sg0 is not a block device: diskdash sends no SCSI \
         commands through /dev/sg*; name the disk's block device (e.g. /dev/sdb) for ioengine=sg"
    );
}

/// fio's `fill_device`: a new file of a write job is sized past the free space of its
/// filesystem (whole MiB and one more, so ENOSPC ends it); a read job is refused.
#[test]
fn fill_device_sizes_a_new_file_past_the_free_space() {
    let mut w = world().file(
        "j.fio",
        "[w]\nfilename=data\nrw=write\nbs=64k\nfill_device=1\n",
    );
    w.free = (100 << 20) + 12_345;
    let inv = w.load(&["j.fio"]).unwrap();
    let spec = &jobs(&inv)[0].spec;
    assert!(spec.fill_device);
    assert_eq!(spec.size_bytes, 102 << 20);
    assert!(
        inv.notes
            .iter()
            .any(|n| n.contains("j.fio:5: fill_device=1: data is sized past the free space")),
        "{:?}",
        inv.notes
    );
    // fill_fs is fio's other name; a given size is kept.
    let mut w = world().file(
        "j.fio",
        "[w]\nfilename=data\nrw=write\nsize=8m\nfill_fs=1\n",
    );
    w.free = 1 << 30;
    let inv = w.load(&["j.fio"]).unwrap();
    assert!(jobs(&inv)[0].spec.fill_device);
    assert_eq!(jobs(&inv)[0].spec.size_bytes, 8 << 20);
    let inv = one("[w]\nsize=8m\nfill_device=0\n").unwrap();
    assert!(!jobs(&inv)[0].spec.fill_device);

    let mut w = world().file("j.fio", "[w]\nfilename=data\nrw=read\nfill_device=1\n");
    w.free = 1 << 30;
    let err = w.load(&["j.fio"]).unwrap_err();
    assert!(
        err.contains(
            "j.fio:4: fill_device=1: diskdash fills a filesystem with a write job only, not rw=read"
        ),
        "{err}"
    );
}

#[test]
fn verify_pattern_and_interval_reach_the_job_as_fio_means_them() {
    let inv = one(
        "[a]\nsize=16m\nrw=write\nbs=64k\nverify=meta\nverify_pattern=0xaa555aa5\n\
         verify_interval=512\n",
    )
    .unwrap();
    let spec = &jobs(&inv)[0].spec;
    assert_eq!(spec.verify.unwrap().kind.as_str(), "crc32c");
    assert_eq!(spec.verify.unwrap().interval, 512);
    assert_eq!(spec.verify_pattern.as_ref().unwrap().text(), "0xaa555aa5");
    // Strings, numbers and %o (outside quotes only) as fio's pattern syntax has them.
    let inv = one("[a]\nsize=16m\nrw=write\nverify=pattern\nverify_pattern=\"ab%o\"%o 0x01 17\n")
        .unwrap();
    let pattern = jobs(&inv)[0].spec.verify_pattern.clone().unwrap();
    assert_eq!(pattern.text(), "0x6162256f%o0x0111");
    for (text, want) in [
        (
            "verify_pattern=0xzz",
            "j.fio:5: verify_pattern \"0xzz\": 0x with no hex digits; write 0x followed by hex \
             digits, a quoted string, a decimal number or %o (the block's offset)",
        ),
        (
            "verify_interval=1000",
            "j.fio:5: verify_interval \"1000\" does not divide the block size 65536; use a size \
             that does, e.g. 512",
        ),
        (
            "verify_interval=abc",
            "j.fio:5: verify_interval \"abc\" is not a size; use e.g. 512 or 4k",
        ),
        (
            "verify_interval=64",
            "j.fio:5: verify_interval \"64\" is shorter than the 80-byte verify header; use at \
             least 80",
        ),
    ] {
        let file = format!("[a]\nsize=16m\nrw=write\nbs=64k\n{text}\nverify=crc32c\n");
        assert_eq!(one(&file).unwrap_err(), want, "{text}");
    }
    // verify_pattern alone is fio's verify=pattern; a verify= line after it wins.
    let alone = one("[a]\nsize=16m\nrw=write\nverify_pattern=0x01\n").unwrap();
    let verify = jobs(&alone)[0].spec.verify.unwrap();
    assert_eq!(verify.kind.as_str(), "pattern");
    let after = one("[a]\nsize=16m\nrw=write\nverify_pattern=0x01\nverify=crc32c\n").unwrap();
    assert_eq!(jobs(&after)[0].spec.verify.unwrap().kind.as_str(), "crc32c");
}

#[test]
fn a_read_job_with_verify_checks_what_it_reads_unless_do_verify_is_0() {
    let inv = one("[a]\nsize=16m\nrw=read\nverify=crc32c\n").unwrap();
    assert!(jobs(&inv)[0].spec.verify.unwrap().only);
    let inv = one("[a]\nsize=16m\nrw=read\nverify=crc32c\ndo_verify=0\n").unwrap();
    assert!(jobs(&inv)[0].spec.verify.is_none());
}

#[test]
fn a_file_an_earlier_job_writes_is_sized_when_the_reader_starts() {
    let text = "[global]\nbs=64k\nverify=meta\nverify_pattern=0xaa555aa5\nverify_interval=512\n\
                [w]\nfilename=data\nsize=8m\nrw=write\ndo_verify=0\n\
                [r]\nstonewall\nfilename=data\nrw=read\ndo_verify=1\n";
    let inv = one(text).unwrap();
    let jobs = jobs(&inv);
    assert!(!jobs[0].spec.size_at_start);
    assert_eq!(jobs[1].missing, Missing::Refuse);
    assert!(jobs[1].spec.size_at_start);
    assert_eq!(
        jobs[1].spec.size_bytes,
        8 << 20,
        "at most the writer's size"
    );
    assert!(jobs[1].spec.verify.unwrap().only);
    assert!(
        inv.notes
            .iter()
            .any(|n| n.contains("job r: data is the file job w writes"))
    );
    // Without stonewall it would read the file while it is being written.
    assert_eq!(
        one(&text.replace("stonewall\n", "")).unwrap_err(),
        "job r reads data while job w writes it into being, so it has no size yet; add \
         stonewall to job r to run it after, or give it size=SIZE"
    );
}

#[test]
fn verify_backlog_takes_fios_default_batch_and_needs_verify() {
    let backlog = |text: &str| {
        let inv = one(text).unwrap();
        jobs(&inv)[0].spec.verify.and_then(|v| v.backlog)
    };
    let got = backlog("[a]\nsize=16m\nrw=randrw\nverify=crc32c\nverify_backlog=1024\n").unwrap();
    assert_eq!((got.every, got.batch), (1024, 1024));
    let got = backlog(
        "[a]\nsize=16m\nrw=write\nverify=crc32c\nverify_backlog=8\nverify_backlog_batch=2\n",
    )
    .unwrap();
    assert_eq!((got.every, got.batch), (8, 2));
    assert_eq!(
        backlog("[a]\nsize=16m\nrw=write\nverify=crc32c\nverify_backlog=0\n"),
        None
    );
    // Without verify fio has nothing to log, and so neither a backlog.
    let inv = one("[a]\nsize=16m\nrw=randrw\nverify_backlog=16\n").unwrap();
    assert!(jobs(&inv)[0].spec.verify.is_none());
    let err = one("[a]\nsize=16m\nrw=write\nverify=crc32c\nverify_backlog=-3\n").unwrap_err();
    assert!(err.contains("is not a number of blocks"), "{err}");
}

#[test]
fn reports_name_an_alias_by_fios_own_name_for_it() {
    assert_eq!(fio_name("timeout"), "runtime");
    assert_eq!(fio_name("readwrite"), "rw");
    assert_eq!(fio_name("iodepth_batch_submit"), "iodepth_batch");
    assert_eq!(
        fio_name("iodepth-batch-complete"),
        "iodepth_batch_complete_min"
    );
    assert_eq!(fio_name("blocksize"), "bs");
    assert_eq!(fio_name("bs"), "bs");
    assert_eq!(fio_name("runtime"), "runtime");
}

/// An error names an option by the alias it was given as (fio: `failed parsing blocksize=zz`),
/// and by fio's own name otherwise.
#[test]
fn errors_name_an_option_as_it_was_given() {
    let cases: &[(&str, &str)] = &[
        ("blocksize=zz", r#"j.fio:3: blocksize "zz" is not a size"#),
        ("bs=zz", r#"j.fio:3: bs "zz" is not a size"#),
        (
            "iomem=bogus",
            r#"j.fio:3: iomem "bogus" is not an I/O memory type"#,
        ),
        (
            "mem=bogus",
            r#"j.fio:3: mem "bogus" is not an I/O memory type"#,
        ),
    ];
    for (line, error) in cases {
        let text = format!("[a]\nsize=1M\n{line}\n");
        let got = world().file("j.fio", &text).load(&["j.fio"]).unwrap_err();
        assert!(got.starts_with(error), "{line}: {got}");
    }
    let cases: &[(&str, &str)] = &[
        ("--timeout=zz", r#"--timeout "zz" is not a duration"#),
        ("--runtime=zz", r#"--runtime "zz" is not a duration"#),
        ("--readwrite=zz", r#"--readwrite "zz" is not a workload"#),
        (
            "--iomem=cudamalloc",
            r#"--iomem "cudamalloc" is not an I/O memory type"#,
        ),
    ];
    for (flag, error) in cases {
        let got = world().load(&["--name=a", "--size=1M", flag]).unwrap_err();
        assert!(got.starts_with(error), "{flag}: {got}");
    }
}

#[test]
fn a_typo_in_a_job_file_or_on_the_command_line_gets_the_option_it_meant() {
    let w = world().file("t.fio", "[a]\nsize=1M\niodepht=8\n");
    assert_eq!(
        w.load(&["t.fio"]).unwrap_err(),
        "t.fio:3: iodepht=8: not a fio option diskdash knows; did you mean iodepth?"
    );
    assert_eq!(
        world()
            .load(&["--name=a", "--size=1M", "--runtmie=1"])
            .unwrap_err(),
        "--runtmie=1: not a fio option diskdash knows; did you mean runtime?"
    );
    // Nothing near: the pointer to the list; the opt-in to destroy data is never suggested.
    for (args, shown) in [
        (
            &["--name=a", "--size=1M", "--frobnicate=1"][..],
            "--frobnicate=1",
        ),
        (
            &["--name=a", "--size=1M", "--allow-destructiv"][..],
            "--allow-destructiv",
        ),
    ] {
        assert_eq!(
            world().load(args).unwrap_err(),
            format!(
                "{shown}: not a fio option diskdash knows; see 'diskdash fio --help' for the \
                 options it honours"
            )
        );
    }
    assert_eq!(edits("iodepht", "iodepth"), 1);
    assert_eq!(edits("", "bs"), 2);
    assert_eq!(edits("size", "size"), 0);
}

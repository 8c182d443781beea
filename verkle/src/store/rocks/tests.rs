use super::*;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fverkle-rocks-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn batches_round_trip_and_reopen() {
    let dir = temp_dir("unit");
    let a = NodePath::new(&[1, 2]).unwrap();
    let b = NodePath::new(&[0xff; 32]).unwrap();
    {
        let mut s = RocksStore::open(&dir).unwrap();
        s.write(NodeBatch {
            puts: vec![(a, vec![1]), (b, vec![2])],
            deletes: vec![],
            meta: vec![(b"k".to_vec(), vec![7])],
        })
        .unwrap();
        let shared = s.clone();
        shared
            .write_batch(&NodeBatch {
                puts: vec![],
                deletes: vec![a],
                meta: vec![],
            })
            .unwrap();
        assert_eq!(s.get(&a).unwrap(), None);
    }
    let s = RocksStore::open(&dir).unwrap();
    assert_eq!(s.get(&a).unwrap(), None);
    assert_eq!(s.get(&b).unwrap(), Some(vec![2]));
    assert_eq!(s.get_node(&[0xff; 32]).unwrap(), Some(vec![2]));
    assert_eq!(NodeStore::get_meta(&s, b"k").unwrap(), Some(vec![7]));
    // Node and meta keys live apart.
    assert_eq!(s.get_node(b"k").unwrap(), None);
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn top_records_have_their_own_column() {
    let dir = temp_dir("top");
    let path = |b: &[u8]| NodePath::new(b).unwrap();
    let deep = [9u8; 31];
    let written: Vec<(NodePath, Vec<u8>)> = [&[][..], &[3], &[3, 4], &[3, 4, 5], &deep]
        .iter()
        .map(|b| (path(b), [&[0xaa][..], b].concat()))
        .collect();
    {
        let mut s = RocksStore::open(&dir).unwrap();
        assert!(s.splits_top());
        s.write(NodeBatch {
            puts: written.clone(),
            deletes: vec![],
            meta: vec![],
        })
        .unwrap();
    }
    // Where the records are, read with RocksDB directly.
    {
        let names = DB::list_cf(&Options::default(), &dir).unwrap();
        assert!(names.iter().any(|n| n == CF_TOP), "{names:?}");
        let cfs =
            [CF_NODES, CF_META, CF_TOP].map(|n| ColumnFamilyDescriptor::new(n, Options::default()));
        let db = DB::open_cf_descriptors(&Options::default(), &dir, cfs).unwrap();
        let (top, nodes) = (
            db.cf_handle(CF_TOP).unwrap(),
            db.cf_handle(CF_NODES).unwrap(),
        );
        for (p, v) in &written {
            let short = p.len() <= TOP_PATH_LEN;
            let (home, other) = if short { (top, nodes) } else { (nodes, top) };
            assert_eq!(
                db.get_cf(home, p.as_bytes()).unwrap().as_ref(),
                Some(v),
                "{p}"
            );
            assert_eq!(db.get_cf(other, p.as_bytes()).unwrap(), None, "{p}");
        }
    }
    let mut s = RocksStore::open(&dir).unwrap();
    assert!(s.splits_top());
    // Mixed reads (both columns, missing keys in each, any order) match single reads.
    let mut keys: Vec<Vec<u8>> = written.iter().map(|(p, _)| p.as_bytes().to_vec()).collect();
    keys.extend([vec![7], vec![7, 7, 7], vec![3, 4, 6]]);
    keys.reverse();
    let many: Vec<Option<Vec<u8>>> = s
        .get_nodes(keys.iter().map(Vec::as_slice))
        .into_iter()
        .map(|r| r.unwrap())
        .collect();
    let one: Vec<Option<Vec<u8>>> = keys.iter().map(|k| s.get_node(k).unwrap()).collect();
    assert_eq!(many, one);
    assert_eq!(many.iter().filter(|v| v.is_some()).count(), written.len());
    for (p, v) in &written {
        assert_eq!(s.get(p).unwrap().as_ref(), Some(v), "{p}");
    }
    s.write(NodeBatch {
        puts: vec![],
        deletes: vec![path(&[3, 4]), path(&[3, 4, 5])],
        meta: vec![],
    })
    .unwrap();
    assert_eq!(s.get(&path(&[3, 4])).unwrap(), None);
    assert_eq!(s.get(&path(&[3, 4, 5])).unwrap(), None);
    assert_eq!(s.get(&path(&[3])).unwrap(), Some(vec![0xaa, 3]));
    s.flush().unwrap();
    s.compact().unwrap();
    assert_eq!(s.get(&path(&[3])).unwrap(), Some(vec![0xaa, 3]));
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn batched_reads_match_single_reads_in_any_order() {
    let dir = temp_dir("multi");
    let mut s = RocksStore::open(&dir).unwrap();
    let key = |i: u32| {
        let mut k = vec![(i % 251) as u8];
        k.extend_from_slice(&i.to_be_bytes());
        k
    };
    // Even keys exist (some in SST files, some in the memtable), odd ones do not.
    for part in 0..2u32 {
        s.write(NodeBatch {
            puts: (part * 2_500..(part + 1) * 2_500)
                .map(|i| (NodePath::new(&key(2 * i)).unwrap(), key(2 * i)))
                .collect(),
            deletes: vec![],
            meta: vec![],
        })
        .unwrap();
        if part == 0 {
            s.flush().unwrap();
        }
    }
    let mut keys: Vec<Vec<u8>> = (0..10_000u32).map(key).collect();
    keys.sort();
    let mut reversed = keys.clone();
    reversed.reverse();
    let mut repeated = keys[..3_000].to_vec();
    repeated.extend_from_slice(&keys[1_000..2_000]);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for (name, ks) in [
        ("sorted", &keys),
        ("reversed", &reversed),
        ("repeated", &repeated),
    ] {
        let single: Vec<Option<Vec<u8>>> = ks.iter().map(|k| s.get_node(k).unwrap()).collect();
        // Split across threads (2-thread pool) and in one MultiGet (this thread's pool
        // may have one thread; the chunked path needs two).
        let parallel: Vec<Option<Vec<u8>>> = pool.install(|| {
            s.get_nodes(ks.iter().map(Vec::as_slice))
                .into_iter()
                .map(|r| r.unwrap())
                .collect()
        });
        let one = s.multi_get(
            CF_NODES,
            s.cf(CF_NODES).unwrap(),
            &ks.iter().map(Vec::as_slice).collect::<Vec<_>>(),
        );
        let one: Vec<Option<Vec<u8>>> = one.into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(parallel, single, "{name}");
        assert_eq!(one, single, "{name}");
        let found = single.iter().filter(|v| v.is_some()).count();
        assert!(found > 1_000, "{name}: {found}");
    }
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn opens_databases_written_with_lz4() {
    // Earlier versions wrote LZ4-compressed files; they stay readable.
    let dir = temp_dir("lz4");
    {
        let mut o = Options::default();
        o.create_if_missing(true);
        o.create_missing_column_families(true);
        o.set_compression_type(DBCompressionType::Lz4);
        let cfs = vec![
            ColumnFamilyDescriptor::new(CF_NODES, o.clone()),
            ColumnFamilyDescriptor::new(CF_META, o.clone()),
        ];
        let db = DB::open_cf_descriptors(&o, &dir, cfs).unwrap();
        let nodes = db.cf_handle(CF_NODES).unwrap();
        for i in 0..2_000u32 {
            db.put_cf(nodes, i.to_be_bytes(), [7u8; 100]).unwrap();
        }
        // A depth-2 record: such a database (made before the `top` column family) keeps
        // it in `nodes`.
        db.put_cf(nodes, [0u8, 5], [8u8; 10]).unwrap();
        db.flush_cf(nodes).unwrap();
    }
    let mut s = RocksStore::open(&dir).unwrap();
    assert!(!s.splits_top());
    assert_eq!(s.get_node(&[0, 5]).unwrap(), Some(vec![8u8; 10]));
    s.write(NodeBatch {
        puts: vec![(NodePath::new(&[1]).unwrap(), vec![9])],
        deletes: vec![],
        meta: vec![],
    })
    .unwrap();
    assert_eq!(s.get_node(&[1]).unwrap(), Some(vec![9]));
    assert_eq!(
        s.get_node(&5u32.to_be_bytes()).unwrap(),
        Some(vec![7u8; 100])
    );
    let keys: Vec<[u8; 4]> = (0..2_000u32).map(u32::to_be_bytes).collect();
    let read = s.get_nodes(keys.iter().map(|k| &k[..]));
    assert!(read.into_iter().all(|r| r.unwrap() == Some(vec![7u8; 100])));
    drop(s);
    // Reopening keeps the layout (no `top` column family appears).
    let s = RocksStore::open(&dir).unwrap();
    assert!(!s.splits_top());
    assert_eq!(s.get_node(&[1]).unwrap(), Some(vec![9]));
    drop(s);
    let names = DB::list_cf(&Options::default(), &dir).unwrap();
    assert!(!names.iter().any(|n| n == CF_TOP), "{names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unreadable_database_is_not_opened() {
    // A `CURRENT` file naming no manifest: the column families cannot be listed, and
    // the store must not guess a layout (or create a database over it).
    let dir = temp_dir("current");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("CURRENT"), b"MANIFEST-000099\n").unwrap();
    match RocksStore::open(&dir) {
        Err(e @ RocksError::Open { .. }) => {
            assert!(e.to_string().contains(&dir.display().to_string()), "{e}")
        }
        other => panic!("expected an open error, got {other:?}"),
    }
    assert_eq!(
        std::fs::read(dir.join("CURRENT")).unwrap(),
        b"MANIFEST-000099\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn open_failure_names_the_directory() {
    let dir = temp_dir("file");
    std::fs::write(&dir, b"not a directory").unwrap();
    match RocksStore::open(&dir) {
        Err(e @ RocksError::Open { .. }) => {
            assert!(e.to_string().contains(&dir.display().to_string()), "{e}")
        }
        other => panic!("expected an open error, got {other:?}"),
    }
    let _ = std::fs::remove_file(&dir);
}

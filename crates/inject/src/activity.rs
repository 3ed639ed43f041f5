//! CUPTI activity records to record-file lines.
//!
//! Record layouts are those of CUDA 13.0's CUPTI, from cudarc's bindings
//! (`cuda-13000`): CUpti_ActivityKernel10, CUpti_ActivityMemcpy6,
//! CUpti_ActivityMemcpyPtoP4, CUpti_ActivityMemset4, CUpti_ActivityMarker2,
//! CUpti_ActivityAPI and CUpti_ActivityDevice5. Later 13.x releases only
//! append fields to these (Kernel11 adds `priority` at the end, Memcpy7 and
//! Memset5 add source-graph ids at the end, Device6 adds `numTpcs`), so the
//! fields read here stay where they are; the tool refuses CUPTI older than
//! 13.0. Fields are read one by one at their offsets, as plain integers and
//! pointers, never as whole Rust structs (whose enum fields CUPTI may fill
//! with values Rust does not know).

use std::ffi::{c_char, CStr};
use std::mem::offset_of;

use cudarc::cupti::sys::{
    CUpti_ActivityAPI as Api, CUpti_ActivityDevice5 as Device, CUpti_ActivityKernel10 as Kernel,
    CUpti_ActivityKind as Kind, CUpti_ActivityMarker2 as Marker, CUpti_ActivityMemcpy6 as Memcpy,
    CUpti_ActivityMemcpyPtoP4 as PtoP, CUpti_ActivityMemset4 as Memset,
};

use roofline_records::{MarkerFlag, Record};

use crate::writer::Writer;

/// Reads a `T` at `offset` bytes into a record.
///
/// # Safety
/// `rec + offset` must be inside the record.
unsafe fn at<T: Copy>(rec: *const u8, offset: usize) -> T {
    unsafe { std::ptr::read_unaligned(rec.add(offset) as *const T) }
}

macro_rules! field {
    ($rec:expr, $ty:ty, $field:ident, $as:ty) => {
        // SAFETY: the offset comes from the record's own layout.
        unsafe { at::<$as>($rec, offset_of!($ty, $field)) }
    };
}

/// A string of a record; CUPTI keeps it alive while the buffer is being
/// processed, and it is copied (interned) at once.
fn text<'a>(p: *const c_char) -> Option<&'a [u8]> {
    if p.is_null() {
        None
    } else {
        // SAFETY: CUPTI's strings are NUL-terminated.
        Some(unsafe { CStr::from_ptr(p) }.to_bytes())
    }
}

fn nonzero32(v: u32) -> Option<u32> {
    (v != 0).then_some(v)
}

fn nonzero64(v: u64) -> Option<u64> {
    (v != 0).then_some(v)
}

fn copy_kind(k: u8) -> &'static str {
    match k {
        1 => "HtoD",
        2 => "DtoH",
        3 => "HtoA",
        4 => "AtoH",
        5 => "AtoA",
        6 => "AtoD",
        7 => "DtoA",
        8 => "DtoD",
        9 => "HtoH",
        10 => "PtoP",
        _ => "unknown",
    }
}

/// Which launch-like API calls were enabled (by callback id), per domain.
pub struct ApiFilter {
    pub driver: Vec<Option<u32>>,
    pub runtime: Vec<Option<u32>>,
}

impl ApiFilter {
    fn name_of(&self, kind: u32, cbid: u32) -> Option<u32> {
        let list = if kind == Kind::CUPTI_ACTIVITY_KIND_DRIVER as u32 { &self.driver } else { &self.runtime };
        list.get(cbid as usize).copied().flatten()
    }
}

/// Converts one CUPTI record; returns false for kinds that are not written.
///
/// # Safety
/// `rec` points at a complete record handed over by CUPTI.
pub unsafe fn convert(rec: *const u8, w: &mut Writer, apis: &ApiFilter) -> bool {
    let kind: u32 = unsafe { at(rec, 0) };
    if kind == Kind::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL as u32 || kind == Kind::CUPTI_ACTIVITY_KIND_KERNEL as u32 {
        let name_ptr = field!(rec, Kernel, name, *const c_char);
        let name = w.intern(text(name_ptr).unwrap_or(b"<unnamed kernel>"));
        let dim = |x: i32| x.max(0) as u32;
        let r = Record::Kernel {
            name,
            start: field!(rec, Kernel, start, u64),
            end: field!(rec, Kernel, end, u64),
            dev: field!(rec, Kernel, deviceId, u32),
            ctx: field!(rec, Kernel, contextId, u32),
            stream: field!(rec, Kernel, streamId, u32),
            corr: field!(rec, Kernel, correlationId, u32),
            grid: [
                dim(field!(rec, Kernel, gridX, i32)),
                dim(field!(rec, Kernel, gridY, i32)),
                dim(field!(rec, Kernel, gridZ, i32)),
            ],
            block: [
                dim(field!(rec, Kernel, blockX, i32)),
                dim(field!(rec, Kernel, blockY, i32)),
                dim(field!(rec, Kernel, blockZ, i32)),
            ],
            regs: field!(rec, Kernel, registersPerThread, u16),
            smem_static: dim(field!(rec, Kernel, staticSharedMemory, i32)),
            smem_dynamic: dim(field!(rec, Kernel, dynamicSharedMemory, i32)),
            graph: nonzero32(field!(rec, Kernel, graphId, u32)),
            node: nonzero64(field!(rec, Kernel, graphNodeId, u64)),
        };
        w.write(&r);
        return true;
    }
    if kind == Kind::CUPTI_ACTIVITY_KIND_MEMCPY as u32 {
        let r = Record::Memcpy {
            copy: copy_kind(field!(rec, Memcpy, copyKind, u8)).into(),
            bytes: field!(rec, Memcpy, bytes, u64),
            start: field!(rec, Memcpy, start, u64),
            end: field!(rec, Memcpy, end, u64),
            dev: field!(rec, Memcpy, deviceId, u32),
            ctx: field!(rec, Memcpy, contextId, u32),
            stream: field!(rec, Memcpy, streamId, u32),
            corr: field!(rec, Memcpy, correlationId, u32),
            src_dev: None,
            dst_dev: None,
            graph: nonzero32(field!(rec, Memcpy, graphId, u32)),
            node: nonzero64(field!(rec, Memcpy, graphNodeId, u64)),
        };
        w.write(&r);
        return true;
    }
    if kind == Kind::CUPTI_ACTIVITY_KIND_MEMCPY2 as u32 {
        let r = Record::Memcpy {
            copy: copy_kind(field!(rec, PtoP, copyKind, u8)).into(),
            bytes: field!(rec, PtoP, bytes, u64),
            start: field!(rec, PtoP, start, u64),
            end: field!(rec, PtoP, end, u64),
            dev: field!(rec, PtoP, deviceId, u32),
            ctx: field!(rec, PtoP, contextId, u32),
            stream: field!(rec, PtoP, streamId, u32),
            corr: field!(rec, PtoP, correlationId, u32),
            src_dev: Some(field!(rec, PtoP, srcDeviceId, u32)),
            dst_dev: Some(field!(rec, PtoP, dstDeviceId, u32)),
            graph: nonzero32(field!(rec, PtoP, graphId, u32)),
            node: nonzero64(field!(rec, PtoP, graphNodeId, u64)),
        };
        w.write(&r);
        return true;
    }
    if kind == Kind::CUPTI_ACTIVITY_KIND_MEMSET as u32 {
        let r = Record::Memset {
            bytes: field!(rec, Memset, bytes, u64),
            value: field!(rec, Memset, value, u32),
            start: field!(rec, Memset, start, u64),
            end: field!(rec, Memset, end, u64),
            dev: field!(rec, Memset, deviceId, u32),
            ctx: field!(rec, Memset, contextId, u32),
            stream: field!(rec, Memset, streamId, u32),
            corr: field!(rec, Memset, correlationId, u32),
            graph: nonzero32(field!(rec, Memset, graphId, u32)),
            node: nonzero64(field!(rec, Memset, graphNodeId, u64)),
        };
        w.write(&r);
        return true;
    }
    if kind == Kind::CUPTI_ACTIVITY_KIND_RUNTIME as u32 || kind == Kind::CUPTI_ACTIVITY_KIND_DRIVER as u32 {
        let cbid = field!(rec, Api, cbid, u32);
        let Some(name) = apis.name_of(kind, cbid) else { return false };
        let r = Record::Api {
            name,
            start: field!(rec, Api, start, u64),
            end: field!(rec, Api, end, u64),
            tid: field!(rec, Api, threadId, u32),
            corr: field!(rec, Api, correlationId, u32),
        };
        w.write(&r);
        return true;
    }
    if kind == Kind::CUPTI_ACTIVITY_KIND_MARKER as u32 {
        // CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS = 1, _START = 2, _END = 4.
        let flags = field!(rec, Marker, flags, u32);
        let flag = if flags & 2 != 0 {
            MarkerFlag::Start
        } else if flags & 4 != 0 {
            MarkerFlag::End
        } else {
            MarkerFlag::Instant
        };
        // objectKind PROCESS = 1 or THREAD = 2: objectId is {processId, threadId}.
        let object_kind = field!(rec, Marker, objectKind, u32);
        let id_at = offset_of!(Marker, objectId);
        let (pid, tid) = if object_kind == 1 || object_kind == 2 {
            // SAFETY: objectId is 12 bytes; pt is its first 8.
            unsafe { (at::<u32>(rec, id_at), at::<u32>(rec, id_at + 4)) }
        } else {
            (0, 0)
        };
        let name = text(field!(rec, Marker, name, *const c_char)).map(|s| w.intern(s));
        let domain = text(field!(rec, Marker, domain, *const c_char)).map(|s| w.intern(s));
        let r = Record::Marker {
            id: field!(rec, Marker, id, u32),
            flag,
            ts: field!(rec, Marker, timestamp, u64),
            pid,
            tid,
            name,
            domain,
        };
        w.write(&r);
        return true;
    }
    if kind == Kind::CUPTI_ACTIVITY_KIND_DEVICE as u32 {
        let name = text(field!(rec, Device, name, *const c_char)).map(|s| String::from_utf8_lossy(s).to_string());
        let uuid: [u8; 16] = unsafe { at(rec, offset_of!(Device, uuid)) };
        let hex: String = uuid.iter().map(|b| format!("{b:02x}")).collect();
        let uuid = format!("GPU-{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..]);
        let r = Record::Device {
            id: field!(rec, Device, id, u32),
            name: name.unwrap_or_default(),
            uuid: Some(uuid),
            cc: Some(format!(
                "{}.{}",
                field!(rec, Device, computeCapabilityMajor, u32),
                field!(rec, Device, computeCapabilityMinor, u32)
            )),
            sms: Some(field!(rec, Device, numMultiprocessors, u32)),
        };
        w.write(&r);
        return true;
    }
    false
}

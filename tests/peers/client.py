#!/usr/bin/python3
"""A DRA kubelet-plugin client on Python grpcio (test peer and benchmark).

  client.py --socket S info                      Registration.GetInfo as JSON
  client.py --socket S notify [--error MSG]      NotifyRegistrationStatus
  client.py --socket S [--service V] prepare|unprepare NS/NAME/UID...
            [--claims N]                         N generated claims instead
  client.py --socket S health [--count N] [--service v1alpha1|v1]
                                                 N stream messages as JSON lines
  client.py --socket S bench --calls N --claims K
                                                 in-process prepare latency (µs)
Exit 0 on success, 3 with the gRPC status on stderr otherwise.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dra_pb  # noqa: E402
import grpc  # noqa: E402

pb = dra_pb.load()
SERVICES = {"v1.DRAPlugin": ("dra_v1", "k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin"),
            "v1beta1.DRAPlugin": ("dra_v1beta1", "k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin")}


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--socket", required=True)
    p.add_argument("--service", default="v1.DRAPlugin")
    p.add_argument("--timeout", type=float, default=10)
    p.add_argument("--claims", type=int, default=0)
    p.add_argument("--calls", type=int, default=100)
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--error", default="")
    p.add_argument("--pad", type=int, default=0)
    p.add_argument("cmd")
    p.add_argument("refs", nargs="*")
    return p.parse_args()


def claims_of(args, m):
    out = []
    for r in args.refs:
        ns, name, uid = r.split("/")
        out.append(m.Claim(namespace=ns, name=name, uid=uid))
    for i in range(args.claims):
        out.append(m.Claim(namespace="default", name="claim-%d" % i, uid="uid-%d" % i))
    if args.pad:
        out.append(m.Claim(namespace="default", name="p" * args.pad, uid="uid-pad"))
    return out


def unary(ch, path, req, resp_cls, timeout):
    call = ch.unary_unary(path, request_serializer=lambda x: x.SerializeToString(),
                          response_deserializer=resp_cls.FromString)
    return call(req, timeout=timeout)


def main():
    args = parse()
    opts = [("grpc.max_receive_message_length", 4 << 20), ("grpc.max_send_message_length", 64 << 20)]
    ch = grpc.insecure_channel("unix:" + args.socket, options=opts)
    try:
        if args.cmd in ("info", "notify"):
            rm = pb["pluginregistration_v1"][0]
            if args.cmd == "info":
                r = unary(ch, "/pluginregistration.Registration/GetInfo", rm.InfoRequest(), rm.PluginInfo, args.timeout)
                print(json.dumps({"type": r.type, "name": r.name, "endpoint": r.endpoint,
                                  "supportedVersions": list(r.supported_versions)}))
            else:
                unary(ch, "/pluginregistration.Registration/NotifyRegistrationStatus",
                      rm.RegistrationStatus(plugin_registered=not args.error, error=args.error),
                      rm.RegistrationStatusResponse, args.timeout)
                print("{}")
        elif args.cmd in ("prepare", "unprepare", "bench"):
            mod, svc = SERVICES[args.service]
            m = pb[mod][0]
            prepare = args.cmd != "unprepare"
            meth = "NodePrepareResources" if prepare else "NodeUnprepareResources"
            req_cls = m.NodePrepareResourcesRequest if prepare else m.NodeUnprepareResourcesRequest
            resp_cls = m.NodePrepareResourcesResponse if prepare else m.NodeUnprepareResourcesResponse
            req = req_cls(claims=claims_of(args, m))
            path = "/%s/%s" % (svc, meth)
            if args.cmd == "bench":
                call = ch.unary_unary(path, request_serializer=lambda x: x.SerializeToString(),
                                      response_deserializer=resp_cls.FromString)
                call(req, timeout=args.timeout)  # connect and warm up
                t0 = time.perf_counter()
                for _ in range(args.calls):
                    call(req, timeout=args.timeout)
                us = (time.perf_counter() - t0) / args.calls * 1e6
                print(json.dumps({"calls": args.calls, "claims": len(req.claims), "us_per_call": round(us, 1)}))
                return 0
            r = unary(ch, path, req, resp_cls, args.timeout)
            out = {}
            for uid, v in sorted(r.claims.items()):
                e = {"error": v.error}
                if prepare:
                    e["devices"] = [{"requests": list(d.request_names), "pool": d.pool_name, "device": d.device_name,
                                     "cdiDeviceIDs": list(d.cdi_device_ids)} for d in v.devices]
                out[uid] = e
            print(json.dumps(out, sort_keys=True))
        elif args.cmd == "health":
            mod = "dra_health_v1" if args.service == "v1" else "dra_health_v1alpha1"
            hm = pb[mod][0]
            path = "/%s.DRAResourceHealth/NodeWatchResources" % ("v1" if args.service == "v1" else "v1alpha1")
            call = ch.unary_stream(path, request_serializer=lambda x: x.SerializeToString(),
                                   response_deserializer=hm.NodeWatchResourcesResponse.FromString)
            n = 0
            for msg in call(hm.NodeWatchResourcesRequest(), timeout=args.timeout):
                print(json.dumps([{"pool": d.device.pool_name, "device": d.device.device_name,
                                   "health": hm.HealthStatus.Name(d.health), "lastUpdated": d.last_updated_time}
                                  for d in msg.devices]), flush=True)
                n += 1
                if n >= args.count:
                    break
        else:
            print("unknown command " + args.cmd, file=sys.stderr)
            return 2
    except grpc.RpcError as e:
        print("%s: %s" % (e.code().name, e.details()), file=sys.stderr)
        return 3
    finally:
        ch.close()
    return 0


sys.exit(main())

#!/usr/bin/python3
"""A fake DRA driver kubelet plugin on Python grpcio (test peer).

Serves pluginregistration.Registration on --reg-socket, and DRAPlugin v1 and
v1beta1 plus DRAResourceHealth v1alpha1 on --socket.  Every claim is
"prepared" as one device in pool "pool" with CDI ID
<vendor>/<class>=<claim name>.  Faults for tests:

  --delay S             sleep S seconds before answering prepare/unprepare
  --fail-claim UID=MSG  per-claim error string
  --omit-claim UID      leave the claim out of the answer
  --extra-claim UID     add an entry for a claim nobody asked for
  --abort CODE=MSG      fail the whole call with gRPC status CODE (e.g. 9)
  --garbage             answer bytes that are no protobuf message
  --huge N              add a device whose CDI IDs total about N bytes
  --type T              PluginInfo.type (default DRAPlugin)
  --services A,B        PluginInfo.supported_versions
  --health-file F       JSON list of {pool, device, health} streamed on open
                        and again on SIGUSR1
  --log F               append one JSON line per call received

Writes "ready" to stdout when listening; SIGTERM stops it.
"""
import argparse
import json
import os
import signal
import sys
import threading
import time
from concurrent import futures

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dra_pb  # noqa: E402
import grpc  # noqa: E402

pb = dra_pb.load()


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--socket", required=True)
    p.add_argument("--reg-socket")
    p.add_argument("--name", default="gpu.example.com")
    p.add_argument("--services", default="v1.DRAPlugin,v1beta1.DRAPlugin")
    p.add_argument("--type", default="DRAPlugin")
    p.add_argument("--endpoint")
    p.add_argument("--delay", type=float, default=0)
    p.add_argument("--fail-claim", action="append", default=[])
    p.add_argument("--omit-claim", action="append", default=[])
    p.add_argument("--extra-claim", action="append", default=[])
    p.add_argument("--abort")
    p.add_argument("--garbage", action="store_true")
    p.add_argument("--huge", type=int, default=0)
    p.add_argument("--health-file")
    p.add_argument("--log")
    p.add_argument("--max-msg", type=int, default=4 << 20)
    return p.parse_args()


args = parse()
fails = dict(x.split("=", 1) for x in args.fail_claim)
log_lock = threading.Lock()


def log(entry):
    if not args.log:
        return
    with log_lock, open(args.log, "a") as f:
        f.write(json.dumps(entry) + "\n")


def raw(x):
    return x if isinstance(x, bytes) else x.SerializeToString()


def dra_handlers(mod, service):
    m = pb[mod][0]

    def answer(method, request, context, prepare):
        claims = [{"namespace": c.namespace, "uid": c.uid, "name": c.name} for c in request.claims]
        log({"service": service, "method": method, "claims": claims})
        if args.delay:
            time.sleep(args.delay)
        if args.abort:
            code, msg = args.abort.split("=", 1)
            context.abort(grpc.StatusCode(next(s.value for s in grpc.StatusCode if s.value[0] == int(code))), msg)
        if args.garbage:
            return b"\xff\xff\xff\xff not protobuf"
        resp = m.NodePrepareResourcesResponse() if prepare else m.NodeUnprepareResourcesResponse()
        for c in request.claims:
            if c.uid in args.omit_claim:
                continue
            e = resp.claims[c.uid]
            if c.uid in fails:
                e.error = fails[c.uid]
                continue
            if prepare:
                d = e.devices.add()
                d.pool_name = "pool"
                d.device_name = "dev-" + c.name
                d.cdi_device_ids.append("%s/gpu=%s" % (args.name, c.name))
                if args.huge:
                    for i in range(args.huge // 100 + 1):
                        d.cdi_device_ids.append(("%s/gpu=x%d-" % (args.name, i)).ljust(100, "x"))
        for uid in args.extra_claim:
            resp.claims[uid]
        return resp

    def prep(request, context):
        return answer("NodePrepareResources", request, context, True)

    def unprep(request, context):
        return answer("NodeUnprepareResources", request, context, False)

    return grpc.method_handlers_generic_handler(service, {
        "NodePrepareResources": grpc.unary_unary_rpc_method_handler(
            prep, request_deserializer=m.NodePrepareResourcesRequest.FromString, response_serializer=raw),
        "NodeUnprepareResources": grpc.unary_unary_rpc_method_handler(
            unprep, request_deserializer=m.NodeUnprepareResourcesRequest.FromString, response_serializer=raw),
    })


# Set by signal handlers, which take no lock: a handler runs in the main
# thread between two bytecodes, possibly while that thread holds the lock it
# would take (Event.set() inside Event.wait() deadlocks).
health_gen = [0]
stopping = [False]


def health_message():
    m = pb["dra_health_v1alpha1"][0]
    resp = m.NodeWatchResourcesResponse()
    if args.health_file and os.path.exists(args.health_file):
        with open(args.health_file) as f:
            for d in json.load(f):
                h = resp.devices.add()
                h.device.pool_name = d["pool"]
                h.device.device_name = d["device"]
                h.health = {"Unknown": 0, "Healthy": 1, "Unhealthy": 2}[d.get("health", "Healthy")]
                h.last_updated_time = d.get("lastUpdated", 1700000000)
    return resp


def watch(request, context):
    log({"service": "v1alpha1.DRAResourceHealth", "method": "NodeWatchResources"})
    gen = -1
    while context.is_active() and not stopping[0]:
        if gen == health_gen[0]:
            time.sleep(0.05)
            continue
        gen = health_gen[0]
        yield health_message()


def on_usr1(signum, frame):
    health_gen[0] += 1


def main():
    opts = [("grpc.max_receive_message_length", args.max_msg), ("grpc.max_send_message_length", 64 << 20)]
    servers = []
    dra = grpc.server(futures.ThreadPoolExecutor(max_workers=8), options=opts)
    dra.add_generic_rpc_handlers((
        dra_handlers("dra_v1", "k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin"),
        dra_handlers("dra_v1beta1", "k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin"),
    ))
    hm = pb["dra_health_v1alpha1"][0]
    dra.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("v1alpha1.DRAResourceHealth", {
        "NodeWatchResources": grpc.unary_stream_rpc_method_handler(
            watch, request_deserializer=hm.NodeWatchResourcesRequest.FromString,
            response_serializer=lambda x: x.SerializeToString()),
    }),))
    dra.add_insecure_port("unix:" + args.socket)
    servers.append(dra)
    if args.reg_socket:
        rm = pb["pluginregistration_v1"][0]

        def get_info(request, context):
            log({"service": "pluginregistration.Registration", "method": "GetInfo"})
            return rm.PluginInfo(type=args.type, name=args.name, endpoint=args.endpoint or args.socket,
                                 supported_versions=[s for s in args.services.split(",") if s])

        def notify(request, context):
            log({"service": "pluginregistration.Registration", "method": "NotifyRegistrationStatus",
                 "registered": request.plugin_registered, "error": request.error})
            return rm.RegistrationStatusResponse()

        reg = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        reg.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("pluginregistration.Registration", {
            "GetInfo": grpc.unary_unary_rpc_method_handler(
                get_info, request_deserializer=rm.InfoRequest.FromString,
                response_serializer=lambda x: x.SerializeToString()),
            "NotifyRegistrationStatus": grpc.unary_unary_rpc_method_handler(
                notify, request_deserializer=rm.RegistrationStatus.FromString,
                response_serializer=lambda x: x.SerializeToString()),
        }),))
        reg.add_insecure_port("unix:" + args.reg_socket)
        servers.append(reg)
    for s in servers:
        s.start()
    done = [False]
    signal.signal(signal.SIGTERM, lambda *a: done.__setitem__(0, True))
    signal.signal(signal.SIGINT, lambda *a: done.__setitem__(0, True))
    signal.signal(signal.SIGUSR1, on_usr1)
    print("ready", flush=True)
    while not done[0]:
        time.sleep(0.05)
    stopping[0] = True
    for s in servers:
        s.stop(0)
    for p in (args.socket, args.reg_socket):
        if p and os.path.exists(p):
            os.unlink(p)


main()

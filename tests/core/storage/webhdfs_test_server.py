#!/usr/bin/python3
"""A WebHDFS namenode + datanode on 127.0.0.1 for tests, serving a local directory as the HDFS
namespace. Prints its port on stdout, then serves until idle for --idle-exit seconds or alive for
--max-life seconds (it always stops by itself). Standard library only.

Protocol (as documented for WebHDFS): /webhdfs/v1/<path>?op=... on the namenode; OPEN, CREATE and
APPEND answer 307 with a Location on /datanode/<path> of the same server. Errors are
RemoteException JSON. Fault injection through /_control (see Handler.control)."""
import argparse, json, os, socket, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs, unquote

STATE = {"faults": [], "counts": {}, "last_query": {}, "served": {}, "ranges": {},
         "no_fileid": False, "last_seen": time.time()}
LOCK = threading.Lock()
# Signalled when a read finishes: stats=1 waits for reads in flight, so that a client which has
# already received every byte never sees a count that its last read has not yet been added to.
DONE = threading.Condition(LOCK)
ROOT = "."


def fs_path(hpath):
    return os.path.join(ROOT, hpath.lstrip("/"))


def file_status(path, suffix):
    st = os.stat(path)
    d = {"pathSuffix": suffix, "type": "DIRECTORY" if os.path.isdir(path) else "FILE",
         "length": 0 if os.path.isdir(path) else st.st_size,
         "modificationTime": st.st_mtime_ns // 1000000, "accessTime": 0, "blockSize": 134217728,
         "owner": "test", "group": "test", "permission": "644", "replication": 1,
         "childrenNum": len(os.listdir(path)) if os.path.isdir(path) else 0}
    if not STATE["no_fileid"]:
        d["fileId"] = st.st_ino
    return d


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, code, body=b"", headers=None, ctype="application/json"):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def remote(self, code, exc, msg):
        self.send(code, {"RemoteException": {"exception": exc, "javaClassName":
                                             "org.apache.hadoop." + exc, "message": msg}})

    def take_fault(self, op, hpath):
        with LOCK:
            for f in STATE["faults"]:
                if f["op"] in (op, "ANY") and f["count"] > 0 and f["path"] in ("", hpath):
                    f["count"] -= 1
                    return f
        return None

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def handle_any(self, method):
        STATE["last_seen"] = time.time()
        u = urlsplit(self.path)
        q = {k: v[0] for k, v in parse_qs(u.query, keep_blank_values=True).items()}
        if u.path == "/_control":
            return self.control(q)
        datanode = u.path.startswith("/datanode/")
        if not datanode and not u.path.startswith("/webhdfs/v1"):
            return self.send(404, b"not found", ctype="text/plain")
        hpath = unquote(u.path[len("/datanode"):] if datanode else u.path[len("/webhdfs/v1"):]) or "/"
        op = q.get("op", "").upper()
        key = ("DN_" if datanode else "") + op
        with LOCK:
            STATE["counts"][key] = STATE["counts"].get(key, 0) + 1
            STATE["last_query"][key] = q
        body = self.body() if method in ("PUT", "POST") else b""
        if STATE.get("require_negotiate") and not datanode and \
                not (self.headers.get("Authorization") or "").startswith("Negotiate "):
            return self.send(401, b"", {"WWW-Authenticate": "Negotiate"}, ctype="text/plain")
        fault = self.take_fault(key, hpath)
        if fault:
            kind = fault["kind"]
            if kind == "slow":
                time.sleep(fault["delay_ms"] / 1000.0)
            elif kind == "500":
                return self.send(500, b"Internal Server Error", ctype="text/plain")
            elif kind == "standby":
                return self.remote(503, "StandbyException",
                                   "Operation category READ is not supported in state standby")
            elif kind == "denied":
                return self.remote(403, "AccessControlException",
                                   "Permission denied: user=test, access=READ, inode=" + hpath)
            elif kind == "drop" and not (datanode and op == "OPEN"):
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
        try:
            if datanode:
                return self.datanode(method, op, hpath, q, body, fault)
            return self.namenode(method, op, hpath, q, body)
        except FileNotFoundError:
            return self.remote(404, "FileNotFoundException", "File does not exist: " + hpath)

    def location(self, op, hpath, q):
        host, port = self.server.server_address[:2]
        extra = "".join("&%s=%s" % (k, v) for k, v in q.items() if k != "op")
        return "http://%s:%d/datanode%s?op=%s%s" % (host, port, hpath, op, extra)

    def namenode(self, method, op, hpath, q, body):
        p = fs_path(hpath)
        if op == "GETFILESTATUS" and method == "GET":
            return self.send(200, {"FileStatus": file_status(p, "")})
        if op == "LISTSTATUS" and method == "GET":
            if os.path.isdir(p):
                return self.send(200, {"FileStatuses": {"FileStatus": [
                    file_status(os.path.join(p, n), n) for n in sorted(os.listdir(p))]}})
            return self.send(200, {"FileStatuses": {"FileStatus": [file_status(p, "")]}})
        if op == "OPEN" and method == "GET":
            if not os.path.isfile(p):
                raise FileNotFoundError
            return self.send(307, b"", {"Location": self.location("OPEN", hpath, q)})
        if op == "CREATE" and method == "PUT":
            if os.path.exists(p) and q.get("overwrite", "false") != "true":
                return self.remote(403, "FileAlreadyExistsException", hpath + " already exists")
            if q.get("data") == "true":  # HttpFS: the data comes with the first request
                return self.datanode(method, op, hpath, q, body, None)
            return self.send(307, b"", {"Location": self.location("CREATE", hpath, q)})
        if op == "APPEND" and method == "POST":
            if not os.path.isfile(p):
                raise FileNotFoundError
            if q.get("data") == "true":
                return self.datanode(method, op, hpath, q, body, None)
            return self.send(307, b"", {"Location": self.location("APPEND", hpath, q)})
        if op == "RENAME" and method == "PUT":
            dest = fs_path(q.get("destination", ""))
            overwrite = "OVERWRITE" in q.get("renameoptions", "").upper()
            if not os.path.exists(p) or not os.path.isdir(os.path.dirname(dest)) or \
                    (os.path.exists(dest) and not overwrite):
                return self.send(200, {"boolean": False})
            os.replace(p, dest)
            return self.send(200, {"boolean": True})
        if op == "MKDIRS" and method == "PUT":
            os.makedirs(p, exist_ok=True)
            return self.send(200, {"boolean": True})
        if op == "DELETE" and method == "DELETE":
            if not os.path.exists(p):
                return self.send(200, {"boolean": False})
            if os.path.isdir(p):
                import shutil
                shutil.rmtree(p)
            else:
                os.unlink(p)
            return self.send(200, {"boolean": True})
        return self.remote(400, "IllegalArgumentException", "Invalid value for webhdfs parameter \"op\": " + op)

    def datanode(self, method, op, hpath, q, body, fault):
        p = fs_path(hpath)
        if op == "OPEN":
            return self.open_file(p, hpath, q, fault)
        if op == "CREATE":
            os.makedirs(os.path.dirname(p), exist_ok=True)
            tmp = p + ".__creating"
            with open(tmp, "wb") as f:
                f.write(body)
            os.replace(tmp, p)
            return self.send(201, b"", {"Location": "hdfs://127.0.0.1" + hpath})
        if op == "APPEND":
            with open(p, "ab") as f:
                f.write(body)
            return self.send(200)
        return self.remote(400, "IllegalArgumentException", "bad datanode op " + op)

    def open_file(self, p, hpath, q, fault):
        """Streams [offset, offset + length) of the file; counts the bytes sent per file and
        per range (stats=1 shows them). A drop fault sends half, then closes the connection."""
        with open(p, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            off = int(q.get("offset", 0))
            if off > size:
                return self.remote(403, "IOException", "Offset=%d out of the range [0, %d)" % (off, size))
            end = size if "length" not in q else min(size, off + int(q["length"]))
            todo = end - off
            if fault and fault["kind"] == "drop":
                todo //= 2
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(end - off))
            self.end_headers()
            f.seek(off)
            sent = 0
            with LOCK:
                STATE["inflight"] = STATE.get("inflight", 0) + 1
            try:
                while sent < todo:
                    chunk = f.read(min(1 << 20, todo - sent))
                    if not chunk:
                        break
                    self.wfile.write(chunk)
                    sent += len(chunk)
            finally:
                with LOCK:
                    STATE["served"][hpath] = STATE["served"].get(hpath, 0) + sent
                    STATE["ranges"].setdefault(hpath, []).append([off, sent])
                    STATE["inflight"] -= 1
                    DONE.notify_all()
            if fault and fault["kind"] == "drop":
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)

    def control(self, q):
        """fault=KIND&op=OP&count=N[&delay_ms=D]: the next N requests of OP (OPEN, LISTSTATUS,
        GETFILESTATUS, CREATE, APPEND, RENAME, DN_OPEN, DN_CREATE, DN_APPEND, ANY) fail as KIND
        (500, standby, denied, drop, slow); with path=P only requests for the HDFS path P.
        clear=1: no faults, zero counts and byte counts. no_fileid=0|1.
        require_negotiate=0|1: namenode requests without SPNEGO get 401 Negotiate.
        stats=1: request counts, last queries, bytes served per file ("served") and the
        [offset, bytes] of each read per file ("ranges"), once the reads in flight have ended
        (at most 5 s). shutdown=1: stop."""
        with LOCK:
            if "stats" in q:
                DONE.wait_for(lambda: STATE.get("inflight", 0) == 0, timeout=5)
            if "clear" in q:
                STATE["faults"] = []
                STATE["counts"] = {}
                STATE["served"] = {}
                STATE["ranges"] = {}
            if "fault" in q:
                STATE["faults"].append({"kind": q["fault"], "op": q.get("op", "ANY").upper(),
                                        "count": int(q.get("count", 1)),
                                        "path": q.get("path", ""),
                                        "delay_ms": int(q.get("delay_ms", 0))})
            if "require_negotiate" in q:
                STATE["require_negotiate"] = q["require_negotiate"] == "1"
            if "no_fileid" in q:
                STATE["no_fileid"] = q["no_fileid"] == "1"
            out = {"counts": STATE["counts"], "last_query": STATE["last_query"],
                   "served": STATE["served"], "ranges": STATE["ranges"]}
        self.send(200, out)
        if "shutdown" in q:
            threading.Thread(target=self.server.shutdown, daemon=True).start()

    def do_GET(self):
        self.handle_any("GET")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_POST(self):
        self.handle_any("POST")

    def do_DELETE(self):
        self.handle_any("DELETE")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    # Lets the test process hold the port (bound, not listening) once this server is gone, so that
    # "namenode down" stays "connection refused" and no other test's server can take the port.
    allow_reuse_port = True

    def handle_error(self, request, client_address):
        pass  # dropped connections are part of the tests


def main():
    global ROOT
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--idle-exit", type=float, default=20.0)
    ap.add_argument("--max-life", type=float, default=120.0)
    a = ap.parse_args()
    ROOT = a.root
    server = Server(("127.0.0.1", 0), Handler)
    start = time.time()

    def watchdog():
        while True:
            time.sleep(0.2)
            now = time.time()
            if now - STATE["last_seen"] > a.idle_exit or now - start > a.max_life:
                server.shutdown()
                return

    threading.Thread(target=watchdog, daemon=True).start()
    print(server.server_address[1], flush=True)
    server.serve_forever(poll_interval=0.05)
    server.server_close()


if __name__ == "__main__":
    main()

import SystemPackage
import Testing
@testable import Watcher

@Suite("The mount table and remote file systems")
struct MountsTests {
    @Test("mountinfo lines: mount point (octal escapes undone), type and source; optional fields skipped")
    func parse() {
        let text = """
            22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro
            41 22 0:39 / /home/me/My\\040Share rw,nosuid,nodev,relatime shared:30 master:2 - fuse.sshfs me@nas:/srv/docs rw,user_id=1000
            42 22 0:40 / /mnt/nfs rw,relatime - nfs4 nas:/export\\134dir rw,vers=4.2
            not a mountinfo line
            """
        let mounts = Mount.parse(text)
        #expect(mounts.map(\.path) == [FilePath("/"), FilePath("/home/me/My Share"), FilePath("/mnt/nfs")])
        #expect(mounts.map(\.type) == ["ext4", "fuse.sshfs", "nfs4"])
        #expect(mounts[1].source == "me@nas:/srv/docs")
        #expect(mounts[2].source == "nas:/export\\dir")
    }

    @Test("this machine's own table is read, and / is a local file system here")
    func current() throws {
        let mounts = try #require(Mount.current())
        #expect(mounts.contains { $0.path == FilePath("/") })
        #expect(RemoteFileSystem.kind(of: FilePath("/proc")) == nil)
        #expect(RemoteFileSystem.kind(of: FilePath("/nonexistent/path")) == nil)
    }
}

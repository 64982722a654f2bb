/// Just enough ELF to tell a position-independent executable from a shared library in a
/// file's first bytes: both are `ET_DYN`; an executable asks for a program interpreter
/// (`PT_INTERP`). See elf(5).
enum ELFHeader {
    static func isPositionIndependentExecutable(_ b: [UInt8]) -> Bool {
        guard b.count >= 52, b[0] == 0x7F, b[1] == 0x45, b[2] == 0x4C, b[3] == 0x46 else { return false }
        let is64 = b[4] == 2, little = b[5] == 1
        func int(_ offset: Int, _ size: Int) -> Int? {
            guard offset >= 0, offset + size <= b.count else { return nil }
            var v = 0
            for i in 0..<size { v |= Int(b[offset + (little ? i : size - 1 - i)]) << (8 * i) }
            return v
        }
        guard int(16, 2) == 3 else { return false }  // e_type == ET_DYN
        guard let phoff = is64 ? int(32, 8) : int(28, 4),
              let phentsize = is64 ? int(54, 2) : int(42, 2),
              let phnum = is64 ? int(56, 2) : int(44, 2), phentsize > 0, phnum < 4096
        else { return false }
        for i in 0..<phnum {
            guard let type = int(phoff + i * phentsize, 4) else { return false }
            if type == 3 { return true }  // PT_INTERP
        }
        return false
    }
}

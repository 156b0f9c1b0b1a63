// The permission matrix (test/support/permission-matrix.ts), shard 2 of 3: the routes whose number is 1 modulo 3.
import { permissionMatrix } from "./support/permission-matrix.ts";

permissionMatrix(1, 3);

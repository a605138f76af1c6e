// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The ERC-20 function Permit2 calls to move a payer's tokens.
interface IPermit2Token {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// @notice ERC-1271: how a contract account answers whether it signed a digest.
interface IERC1271 {
    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4);
}

/// @title Permit2
/// @notice Our implementation of the signature-transfer half of Uniswap's Permit2 (the ABI, EIP-712 types, errors
///         and unordered nonces of `SignatureTransfer`), for the devnet, where it is placed at Permit2's canonical
///         address 0x000000000022D473030F116dDEE9F6B43aC78BA3 from genesis. A payer approves this contract on the
///         token once, then signs `PermitTransferFrom` (optionally with a witness) off chain; the named spender
///         moves up to the permitted amount, once per nonce, before the deadline.
/// @dev No constructor and no immutables: the EIP-712 domain (`name "Permit2"`, no version) is computed from
///      `block.chainid` and `address(this)`, so the runtime code works wherever it is placed. The allowance half of
///      Permit2 (`AllowanceTransfer`) is not implemented: x402 uses signature transfers only.
contract Permit2 {
    /// @notice The token and the most of it a permit lets the spender move.
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    /// @notice A signed permit: what may be moved, its unordered nonce and its deadline (unix seconds).
    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    /// @notice Where the spender sends the tokens and how many (at most the permitted amount).
    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    bytes32 private constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("Permit2");
    bytes32 private constant TOKEN_PERMISSIONS_TYPEHASH = keccak256("TokenPermissions(address token,uint256 amount)");
    bytes32 private constant PERMIT_TRANSFER_FROM_TYPEHASH = keccak256(
        "PermitTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)"
    );
    string private constant PERMIT_WITNESS_TRANSFER_FROM_TYPEHASH_STUB =
        "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,";

    /// @notice Used nonces: bit `nonce & 0xff` of word `nonce >> 8` of each owner.
    mapping(address => mapping(uint256 => uint256)) public nonceBitmap;

    /// @notice Emitted when an owner invalidates nonces of a word.
    event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask);

    error InvalidAmount(uint256 maxAmount);
    error SignatureExpired(uint256 signatureDeadline);
    error InvalidNonce();
    error InvalidSignature();
    error InvalidSigner();
    error InvalidSignatureLength();
    error InvalidContractSignature();
    error TransferFailed();

    /// @notice The EIP-712 domain separator of this contract on this chain.
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, block.chainid, address(this)));
    }

    /// @notice Moves `transferDetails.requestedAmount` of the permitted token from `owner` under its signed permit.
    function permitTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external {
        bytes32 dataHash = keccak256(
            abi.encode(PERMIT_TRANSFER_FROM_TYPEHASH, _hashPermissions(permit.permitted), msg.sender, permit.nonce, permit.deadline)
        );
        _transfer(permit, transferDetails, owner, dataHash, signature);
    }

    /// @notice The same, with extra data (`witness`, of type `witnessTypeString`) signed with the permit.
    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external {
        bytes32 typeHash = keccak256(abi.encodePacked(PERMIT_WITNESS_TRANSFER_FROM_TYPEHASH_STUB, witnessTypeString));
        bytes32 dataHash = keccak256(
            abi.encode(typeHash, _hashPermissions(permit.permitted), msg.sender, permit.nonce, permit.deadline, witness)
        );
        _transfer(permit, transferDetails, owner, dataHash, signature);
    }

    /// @notice Marks the nonces of `mask` in word `wordPos` of the caller as used.
    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external {
        nonceBitmap[msg.sender][wordPos] |= mask;
        emit UnorderedNonceInvalidation(msg.sender, wordPos, mask);
    }

    function _hashPermissions(TokenPermissions calldata permitted) private pure returns (bytes32) {
        return keccak256(abi.encode(TOKEN_PERMISSIONS_TYPEHASH, permitted.token, permitted.amount));
    }

    function _transfer(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 dataHash,
        bytes calldata signature
    ) private {
        if (block.timestamp > permit.deadline) revert SignatureExpired(permit.deadline);
        if (transferDetails.requestedAmount > permit.permitted.amount) revert InvalidAmount(permit.permitted.amount);
        _useUnorderedNonce(owner, permit.nonce);
        _verify(keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), dataHash)), owner, signature);
        (bool ok, bytes memory returned) = permit.permitted.token.call(
            abi.encodeCall(IPermit2Token.transferFrom, (owner, transferDetails.to, transferDetails.requestedAmount))
        );
        if (!ok || (returned.length > 0 && !abi.decode(returned, (bool))) || permit.permitted.token.code.length == 0) {
            revert TransferFailed();
        }
    }

    function _useUnorderedNonce(address from, uint256 nonce) private {
        uint256 bit = 1 << (nonce & 0xff);
        uint256 flipped = nonceBitmap[from][nonce >> 8] ^= bit;
        if (flipped & bit == 0) revert InvalidNonce();
    }

    /// @dev 65-byte and 64-byte (EIP-2098) ECDSA for accounts without code; ERC-1271 for contracts.
    function _verify(bytes32 digest, address claimedSigner, bytes calldata signature) private view {
        if (claimedSigner.code.length > 0) {
            if (IERC1271(claimedSigner).isValidSignature(digest, signature) != IERC1271.isValidSignature.selector) {
                revert InvalidContractSignature();
            }
            return;
        }
        bytes32 r;
        bytes32 s;
        uint8 v;
        if (signature.length == 65) {
            r = bytes32(signature[0:32]);
            s = bytes32(signature[32:64]);
            v = uint8(signature[64]);
        } else if (signature.length == 64) {
            bytes32 vs;
            r = bytes32(signature[0:32]);
            vs = bytes32(signature[32:64]);
            s = vs & bytes32(0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff);
            v = uint8(uint256(vs >> 255)) + 27;
        } else {
            revert InvalidSignatureLength();
        }
        address signer = ecrecover(digest, v, r, s);
        if (signer == address(0)) revert InvalidSignature();
        if (signer != claimedSigner) revert InvalidSigner();
    }
}

// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The ERC-20 function the batch contract calls.
interface IERC20TransferFrom {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// @title BatchPayments
/// @notice Pays up to 200 recipients in one atomic transaction, in native ether or one ERC-20, and charges a protocol
///         fee in basis points on top of the total, paid to `feeRecipient`.
/// @dev Written for this project with the ABI of SprayContract on Base (0x1646452F98E36A3c9Cfc3eDD8868221E207B5eEC):
///      the same function signatures, events, errors (OpenZeppelin v5 names) and revert strings, so calldata built
///      for one runs on the other and receipts decode alike. One difference in behavior: `sprayToken` and the ERC-20
///      branch of `sprayEqual` move tokens with `transferFrom(sender, recipient)` directly instead of pulling the
///      total into the contract first, so the contract never holds a batch's tokens; the sender approves the same
///      amount (`calculateTotalCost(total)`) either way.
///      Configuration lives in storage, never in immutables, so every deployment has the same runtime code and the
///      gateway can compare code hashes across chains.
///      The gateway's `core/Batch.ts` `fee` must equal `calculateFee`; `core/Gas.ts` models this contract's gas.
contract BatchPayments {
    /// @notice One payment of a batch.
    struct Recipient {
        /// @notice Who is paid.
        address payable recipient;
        /// @notice Amount in the token's base units (wei for ether).
        uint256 amount;
    }

    /// @notice Highest fee the owner may set, in basis points (5%).
    uint256 public constant MAX_FEE_BPS = 500;
    /// @notice Most recipients of one batch.
    uint256 public constant MAX_RECIPIENTS = 200;

    /// @dev Reentrancy guard states; 1 and 2 rather than 0 and 1 so that each toggle rewrites a non-zero slot.
    uint256 private constant NOT_ENTERED = 1;
    uint256 private constant ENTERED = 2;

    uint256 private _status = NOT_ENTERED;
    /// @notice Whether batches are refused.
    bool public paused;
    /// @notice The account that may change the fee, pause and withdraw stray funds.
    address public owner;
    /// @notice Protocol fee in basis points of the batch total, e.g. 30 for 0.3%.
    uint256 public feeBps;
    /// @notice Receives the protocol fee of every batch.
    address public feeRecipient;

    /// @notice A native batch paid `recipientCount` recipients `totalAmount` wei in all, plus `feeAmount`.
    event SprayETHExecuted(
        address indexed sender, uint256 totalAmount, uint256 recipientCount, uint256 feeAmount, uint256 timestamp
    );
    /// @notice An ERC-20 batch paid `recipientCount` recipients `totalAmount` of `token` in all, plus `feeAmount`.
    event SprayTokenExecuted(
        address indexed sender,
        address indexed token,
        uint256 totalAmount,
        uint256 recipientCount,
        uint256 feeAmount,
        uint256 timestamp
    );
    /// @notice The fee rate changed.
    event FeeUpdated(uint256 oldFeeBps, uint256 newFeeBps);
    /// @notice The fee recipient changed.
    event FeeRecipientUpdated(address oldRecipient, address newRecipient);
    /// @notice The owner withdrew `amount` of `token` (the zero address for ether) held by the contract.
    event EmergencyWithdraw(address indexed token, uint256 amount);
    /// @notice `account` paused batches.
    event Paused(address account);
    /// @notice `account` resumed batches.
    event Unpaused(address account);
    /// @notice Ownership moved from `previousOwner` to `newOwner`.
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    /// @notice `account` is not the owner.
    error OwnableUnauthorizedAccount(address account);
    /// @notice `owner` cannot own the contract (the zero address).
    error OwnableInvalidOwner(address owner);
    /// @notice Batches are paused.
    error EnforcedPause();
    /// @notice Batches are not paused.
    error ExpectedPause();
    /// @notice A batch call re-entered the contract.
    error ReentrancyGuardReentrantCall();
    /// @notice The token refused or failed a call without a reason, returned false, or has no code.
    error SafeERC20FailedOperation(address token);

    /// @param initialFeeRecipient Receives the protocol fee.
    /// @param initialFeeBps Fee in basis points, at most `MAX_FEE_BPS`.
    constructor(address initialFeeRecipient, uint256 initialFeeBps) {
        require(initialFeeRecipient != address(0), "Invalid fee recipient");
        require(initialFeeBps <= MAX_FEE_BPS, "Fee too high");
        feeRecipient = initialFeeRecipient;
        feeBps = initialFeeBps;
        owner = msg.sender;
        emit OwnershipTransferred(address(0), msg.sender);
    }

    modifier nonReentrant() {
        if (_status == ENTERED) revert ReentrancyGuardReentrantCall();
        _status = ENTERED;
        _;
        _status = NOT_ENTERED;
    }

    modifier whenNotPaused() {
        if (paused) revert EnforcedPause();
        _;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert OwnableUnauthorizedAccount(msg.sender);
        _;
    }

    /// @notice Pays each recipient its amount in ether, then the fee; `msg.value` must cover
    ///         `calculateTotalCost(total)` and any excess is refunded to the caller.
    function sprayETH(Recipient[] calldata recipients) external payable nonReentrant whenNotPaused {
        uint256 totalAmount = _sum(recipients);
        (uint256 feeAmount, uint256 requiredAmount) = _costOf(totalAmount);
        require(msg.value >= requiredAmount, "Insufficient ETH");

        for (uint256 i = 0; i < recipients.length; i++) {
            _sendEther(recipients[i].recipient, recipients[i].amount, "ETH transfer failed");
        }
        _finishEther(feeAmount, msg.value - requiredAmount);
        emit SprayETHExecuted(msg.sender, totalAmount, recipients.length, feeAmount, block.timestamp);
    }

    /// @notice Moves each recipient's amount of `token` from the caller, then the fee to `feeRecipient`; the caller
    ///         must have approved this contract for `calculateTotalCost(total)`.
    function sprayToken(address token, Recipient[] calldata recipients) external nonReentrant whenNotPaused {
        require(token != address(0), "Invalid token");
        uint256 totalAmount = _sum(recipients);
        (uint256 feeAmount,) = _costOf(totalAmount);

        for (uint256 i = 0; i < recipients.length; i++) {
            _transferFrom(token, msg.sender, recipients[i].recipient, recipients[i].amount);
        }
        if (feeAmount > 0) _transferFrom(token, msg.sender, feeRecipient, feeAmount);
        emit SprayTokenExecuted(msg.sender, token, totalAmount, recipients.length, feeAmount, block.timestamp);
    }

    /// @notice Pays every recipient `amountPerRecipient`: in ether when `token` is the zero address (excess
    ///         `msg.value` refunded), otherwise in that ERC-20 from the caller (no ether may be sent along).
    function sprayEqual(address token, address payable[] calldata recipients, uint256 amountPerRecipient)
        external
        payable
        nonReentrant
        whenNotPaused
    {
        require(recipients.length > 0, "No recipients");
        require(recipients.length <= MAX_RECIPIENTS, "Too many recipients");
        require(amountPerRecipient > 0, "Invalid amount");
        uint256 totalAmount = amountPerRecipient * recipients.length;
        (uint256 feeAmount, uint256 requiredAmount) = _costOf(totalAmount);

        if (token == address(0)) {
            require(msg.value >= requiredAmount, "Insufficient ETH");
            for (uint256 i = 0; i < recipients.length; i++) {
                require(recipients[i] != address(0), "Invalid recipient");
                _sendEther(recipients[i], amountPerRecipient, "ETH transfer failed");
            }
            _finishEther(feeAmount, msg.value - requiredAmount);
            emit SprayETHExecuted(msg.sender, totalAmount, recipients.length, feeAmount, block.timestamp);
        } else {
            // Ether sent along an ERC-20 batch would be stranded here; refuse it instead.
            require(msg.value == 0, "ETH sent with token batch");
            for (uint256 i = 0; i < recipients.length; i++) {
                require(recipients[i] != address(0), "Invalid recipient");
                _transferFrom(token, msg.sender, recipients[i], amountPerRecipient);
            }
            if (feeAmount > 0) _transferFrom(token, msg.sender, feeRecipient, feeAmount);
            emit SprayTokenExecuted(msg.sender, token, totalAmount, recipients.length, feeAmount, block.timestamp);
        }
    }

    /// @notice Protocol fee on `amount`: `amount * feeBps / 10000`, rounded down.
    function calculateFee(uint256 amount) public view returns (uint256) {
        return (amount * feeBps) / 10000;
    }

    /// @notice What a batch of `totalAmount` costs the sender: the total plus its fee.
    function calculateTotalCost(uint256 totalAmount) external view returns (uint256) {
        return totalAmount + calculateFee(totalAmount);
    }

    /// @notice Sets the fee rate, at most `MAX_FEE_BPS`. Owner only.
    function updateFee(uint256 newFeeBps) external onlyOwner {
        require(newFeeBps <= MAX_FEE_BPS, "Fee too high");
        emit FeeUpdated(feeBps, newFeeBps);
        feeBps = newFeeBps;
    }

    /// @notice Sets the fee recipient. Owner only.
    function updateFeeRecipient(address newFeeRecipient) external onlyOwner {
        require(newFeeRecipient != address(0), "Invalid address");
        emit FeeRecipientUpdated(feeRecipient, newFeeRecipient);
        feeRecipient = newFeeRecipient;
    }

    /// @notice Refuses batches until `unpause`. Owner only.
    function pause() external onlyOwner {
        if (paused) revert EnforcedPause();
        paused = true;
        emit Paused(msg.sender);
    }

    /// @notice Accepts batches again. Owner only.
    function unpause() external onlyOwner {
        if (!paused) revert ExpectedPause();
        paused = false;
        emit Unpaused(msg.sender);
    }

    /// @notice Sends `amount` of `token` (the zero address for ether) held by the contract to the owner. Owner only.
    function emergencyWithdraw(address token, uint256 amount) external onlyOwner nonReentrant {
        if (token == address(0)) _sendEther(payable(owner), amount, "ETH withdrawal failed");
        else _callToken(token, abi.encodeWithSignature("transfer(address,uint256)", owner, amount));
        emit EmergencyWithdraw(token, amount);
    }

    /// @notice Hands ownership to `newOwner`. Owner only.
    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert OwnableInvalidOwner(address(0));
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    /// @notice Gives up ownership for good: the fee can no longer change. Owner only.
    function renounceOwnership() external onlyOwner {
        emit OwnershipTransferred(owner, address(0));
        owner = address(0);
    }

    /// @notice Accepts plain ether transfers.
    receive() external payable {}

    /// @dev Checks the count, every recipient and amount, and returns the total (reverting on overflow).
    function _sum(Recipient[] calldata recipients) private pure returns (uint256 totalAmount) {
        require(recipients.length > 0, "No recipients");
        require(recipients.length <= MAX_RECIPIENTS, "Too many recipients");
        for (uint256 i = 0; i < recipients.length; i++) {
            require(recipients[i].recipient != address(0), "Invalid recipient");
            require(recipients[i].amount > 0, "Invalid amount");
            totalAmount += recipients[i].amount;
        }
    }

    /// @dev The fee on `totalAmount` and what the sender pays in all.
    function _costOf(uint256 totalAmount) private view returns (uint256 feeAmount, uint256 requiredAmount) {
        feeAmount = calculateFee(totalAmount);
        requiredAmount = totalAmount + feeAmount;
    }

    /// @dev Pays the fee and refunds the excess of an ether batch.
    function _finishEther(uint256 feeAmount, uint256 excess) private {
        if (feeAmount > 0) _sendEther(payable(feeRecipient), feeAmount, "Fee transfer failed");
        if (excess > 0) _sendEther(payable(msg.sender), excess, "Refund failed");
    }

    /// @dev Sends ether with all remaining gas; reentry into a batch is stopped by `nonReentrant`.
    function _sendEther(address payable to, uint256 amount, string memory failure) private {
        (bool success,) = to.call{value: amount}("");
        require(success, failure);
    }

    /// @dev `token.transferFrom(from, to, amount)` for tokens that return a bool and tokens that return nothing.
    function _transferFrom(address token, address from, address to, uint256 amount) private {
        _callToken(token, abi.encodeCall(IERC20TransferFrom.transferFrom, (from, to, amount)));
    }

    /// @dev Calls `token`; a revert is passed on with its reason, and success needs `true` or no return data from
    ///      an address that has code (a call to an address without code succeeds with no data).
    function _callToken(address token, bytes memory data) private {
        (bool success, bytes memory result) = token.call(data);
        if (!success) {
            if (result.length == 0) revert SafeERC20FailedOperation(token);
            assembly ("memory-safe") {
                revert(add(result, 32), mload(result))
            }
        }
        if (result.length == 0) {
            if (token.code.length == 0) revert SafeERC20FailedOperation(token);
        } else if (result.length != 32 || abi.decode(result, (uint256)) != 1) {
            revert SafeERC20FailedOperation(token);
        }
    }
}
